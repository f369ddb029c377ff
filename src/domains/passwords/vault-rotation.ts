import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { advanceClock, clockValue } from "../../db/change-clock";
import { announceClocks, type LiveSyncBindings } from "../../db/clock-announce";
import { batchable, rowsChanged } from "../../db/d1";

/** One entry re-encrypted for the new key version, from the entry as it stood at `updated_at`. */
export type StagedEntry = {
  id: string;
  updated_at: string;
  wrapped_item_key: string;
  encrypted_data: string;
};

/**
 * Stages re-encrypted entries for a rotation in progress. A copy is kept only if the entry is live
 * and still the one the client re-encrypted (same `updated_at`); its change stamp goes with it, so
 * the commit can tell a copy made stale by a later write. Returns the ids it did not keep.
 */
export async function rotationStage(
  db: Db,
  vaultId: string,
  version: number,
  entries: StagedEntry[],
): Promise<string[]> {
  if (entries.length === 0) return [];
  const results = await db.batch(
    entries.map((e) =>
      batchable(
        db,
        sql`INSERT INTO vault_rotation_entries (vault_id, version, entry_id, base_seq, wrapped_item_key, encrypted_data)
          SELECT ${vaultId}, ${version}, p.id, p.change_seq, ${e.wrapped_item_key}, ${e.encrypted_data}
          FROM passwords p
          WHERE p.id = ${e.id} AND p.user_id = ${vaultId} AND p.vault_id = ${vaultId}
            AND p.deleted_at IS NULL AND p.updated_at = ${e.updated_at}
            AND EXISTS (SELECT 1 FROM vault_key_versions WHERE vault_id = ${vaultId} AND version = ${version} AND state = 'rotating')
          ON CONFLICT (vault_id, version, entry_id) DO UPDATE SET base_seq = excluded.base_seq,
            wrapped_item_key = excluded.wrapped_item_key, encrypted_data = excluded.encrypted_data`,
      ),
    ) as unknown as [ReturnType<typeof batchable>],
  );
  return entries.filter((_, i) => rowsChanged(results[i]!) === 0).map((e) => e.id);
}

/** Live entries without a copy for `version` made from their present state: what is left to do. */
export async function rotationRemaining(db: Db, vaultId: string, version: number) {
  const rows = await db.all<{ id: string; updated_at: string }>(
    sql`SELECT p.id, p.updated_at FROM passwords p
      WHERE p.user_id = ${vaultId} AND p.vault_id = ${vaultId} AND p.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM vault_rotation_entries s WHERE s.vault_id = ${vaultId}
          AND s.version = ${version} AND s.entry_id = p.id AND s.base_seq = p.change_seq)
      ORDER BY p.id LIMIT 1000`,
  );
  return rows;
}

/**
 * The fence: in one transaction, `version` becomes current (only if every live entry has an
 * up-to-date copy), the version before is retired, and every entry takes its copy. A write under
 * the old version that commits first makes its entry's copy stale, so this refuses and the client
 * re-encrypts that entry; one that commits after finds the old version retired and is refused.
 * True when this call committed; false when nothing changed (not ready, or already committed).
 */
export async function rotationCommit(
  db: Db,
  hubs: LiveSyncBindings,
  vaultId: string,
  version: number,
  at: string,
): Promise<boolean> {
  const ready = sql`NOT EXISTS (SELECT 1 FROM passwords p WHERE p.user_id = ${vaultId} AND p.vault_id = ${vaultId}
    AND p.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM vault_rotation_entries s WHERE s.vault_id = ${vaultId}
      AND s.version = ${version} AND s.entry_id = p.id AND s.base_seq = p.change_seq))`;
  const committed = sql`EXISTS (SELECT 1 FROM vault_key_versions WHERE vault_id = ${vaultId} AND version = ${version} AND state = 'current' AND committed_at = ${at})`;
  const staged = (col: string) =>
    sql`(SELECT s.${sql.raw(col)} FROM vault_rotation_entries s WHERE s.vault_id = ${vaultId} AND s.version = ${version} AND s.entry_id = passwords.id)`;
  const [advanced, promoted] = await db.batch([
    advanceClock(db, vaultId),
    batchable(
      db,
      sql`UPDATE vault_key_versions SET state = 'current', committed_at = ${at}
        WHERE vault_id = ${vaultId} AND version = ${version} AND state = 'rotating' AND ${ready}`,
    ),
    batchable(
      db,
      sql`UPDATE vault_key_versions SET state = 'retired'
        WHERE vault_id = ${vaultId} AND version < ${version} AND state = 'current' AND ${committed}`,
    ),
    batchable(
      db,
      sql`UPDATE passwords SET wrapped_item_key = ${staged("wrapped_item_key")}, encrypted_data = ${staged("encrypted_data")},
          updated_at = ${at}, change_seq = ${clockValue(vaultId)}
        WHERE user_id = ${vaultId} AND vault_id = ${vaultId} AND deleted_at IS NULL AND ${committed}`,
    ),
    batchable(
      db,
      sql`DELETE FROM vault_rotation_entries WHERE vault_id = ${vaultId} AND version = ${version} AND ${committed}`,
    ),
  ]);
  const done = rowsChanged(promoted) > 0;
  if (done) announceClocks(hubs, advanced);
  return done;
}
