import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { advanceClock, clockValue } from "../../db/change-clock";
import { announceClocks, type LiveSyncBindings } from "../../db/clock-announce";
import { batchable, rowsChanged } from "../../db/d1";
import type { NewPasswordRow, PasswordRow } from "../../db/schema";
import { passwords } from "../../db/schema/passwords";
import { bytesGuard, guardedInsert, payloadOf, type VaultLimits } from "./repo";

/**
 * A shared vault's entries on its home shard (docs/scale.md, "Shared vaults across shards"): the
 * rows' `user_id` is the vault's id, so the change clock, counters, limits and delta pull work per
 * vault. Every write that carries ciphertext names the key version it was made under and holds only
 * while that version is the vault's `current` one: the fence is read in the write's own statement,
 * so a rotation's commit (one transaction, below) and a write under the old key cannot interleave.
 */
const fence = (vaultId: string, keyVersion: number): SQL =>
  sql`EXISTS (SELECT 1 FROM vault_key_versions WHERE vault_id = ${vaultId} AND version = ${keyVersion} AND state = 'current')`;

const live = (vaultId: string) =>
  and(eq(passwords.userId, vaultId), eq(passwords.vaultId, vaultId), isNull(passwords.deletedAt));

/** The vault's current key version on its home shard, or null for a vault the shard does not hold. */
export async function currentKeyVersion(db: Db, vaultId: string): Promise<number | null> {
  const row = await db.get<{ version: number } | undefined>(
    sql`SELECT version FROM vault_key_versions WHERE vault_id = ${vaultId} AND state = 'current'`,
  );
  return row?.version ?? null;
}

export async function findVaultEntry(db: Db, vaultId: string, id: string) {
  return db
    .select()
    .from(passwords)
    .where(and(live(vaultId), eq(passwords.id, id)))
    .get();
}

/** Inserts under the limits and the fence; false when either refused (the caller reads which). */
export async function vaultInsert(
  db: Db,
  hubs: LiveSyncBindings,
  row: PasswordRow,
  keyVersion: number,
  max: VaultLimits,
  extra: SQL[] = [],
): Promise<boolean> {
  const vaultId = row.userId;
  const [advanced, inserted] = await db.batch([
    advanceClock(db, vaultId),
    batchable(
      db,
      guardedInsert(
        vaultId,
        payloadOf([row]),
        1,
        max.entries,
        max.bytes,
        sql`AND ${fence(vaultId, keyVersion)}`,
      ),
    ),
    db
      .update(passwords)
      .set({ vaultId })
      .where(and(eq(passwords.id, row.id), eq(passwords.userId, vaultId))),
    ...extra.map((q) => batchable(db, q)),
  ]);
  const stored = rowsChanged(inserted) > 0;
  if (stored) announceClocks(hubs, advanced);
  return stored;
}

/** Updates a live entry under the fence and the byte quota; false when any of them refused. */
export async function vaultUpdate(
  db: Db,
  hubs: LiveSyncBindings,
  vaultId: string,
  id: string,
  set: Partial<NewPasswordRow>,
  keyVersion: number,
  maxBytes: number,
  extra: SQL[] = [],
): Promise<boolean> {
  const [advanced, result] = await db.batch([
    advanceClock(db, vaultId),
    db
      .update(passwords)
      .set({ ...set, changeSeq: clockValue(vaultId) })
      .where(
        and(
          live(vaultId),
          eq(passwords.id, id),
          bytesGuard(vaultId, set, maxBytes),
          fence(vaultId, keyVersion),
        ),
      ),
    ...extra.map((q) => batchable(db, q)),
  ]);
  const applied = rowsChanged(result) > 0;
  if (applied) announceClocks(hubs, advanced);
  return applied;
}

/** A tombstone carries no ciphertext, so it needs no key version. */
export async function vaultDelete(
  db: Db,
  hubs: LiveSyncBindings,
  vaultId: string,
  id: string,
  at: string,
  extra: SQL[] = [],
): Promise<boolean> {
  const [advanced, result] = await db.batch([
    advanceClock(db, vaultId),
    db
      .update(passwords)
      .set({ deletedAt: at, updatedAt: at, changeSeq: clockValue(vaultId) })
      .where(and(live(vaultId), eq(passwords.id, id))),
    ...extra.map((q) => batchable(db, q)),
  ]);
  const deleted = rowsChanged(result) > 0;
  if (deleted) announceClocks(hubs, advanced);
  return deleted;
}

/** Tombstones every live entry of a vault being deleted. */
export async function vaultDeleteAll(db: Db, hubs: LiveSyncBindings, vaultId: string, at: string) {
  const [advanced] = await db.batch([
    advanceClock(db, vaultId),
    db
      .update(passwords)
      .set({ deletedAt: at, updatedAt: at, changeSeq: clockValue(vaultId) })
      .where(live(vaultId)),
  ]);
  announceClocks(hubs, advanced);
}

export async function liveVaultCount(db: Db, vaultId: string): Promise<number> {
  const row = await db.get<{ n: number }>(
    sql`SELECT count(*) AS n FROM passwords WHERE user_id = ${vaultId} AND vault_id = ${vaultId} AND deleted_at IS NULL`,
  );
  return row?.n ?? 0;
}
