import { and, desc, eq, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { attachments, liveEntries, passwordHosts, type PasswordRow } from "../../db/schema";
import { passwords } from "../../db/schema/passwords";
import { advanceClock, clockValue } from "../../db/change-clock";
import { announceClocks, type LiveSyncBindings } from "../../db/clock-announce";
import { rowsChanged } from "../../db/d1";
import { bytesGuard, type VaultLimits } from "./repo";

/**
 * The trash: entries soft-deleted (DELETE or a sync delete) whose ciphertext is still held. A
 * purge drops the ciphertext and the entry's attachments but keeps the row as a bare tombstone,
 * which the sync purge removes once no cursor can still need it (sync/purge.ts).
 */
const trashed = (userId: string) =>
  and(eq(passwords.userId, userId), isNotNull(passwords.deletedAt), isNull(passwords.purgedAt));

/** Most recently deleted first; the page is small, the count is the index's. */
export async function listTrash(
  db: Db,
  userId: string,
  offset: number,
  limit: number,
): Promise<{ rows: PasswordRow[]; total: number }> {
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(passwords)
      .where(trashed(userId))
      .orderBy(desc(passwords.deletedAt), desc(passwords.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(passwords).where(trashed(userId)),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findTrashed(
  db: Db,
  userId: string,
  id: string,
): Promise<PasswordRow | undefined> {
  return db
    .select()
    .from(passwords)
    .where(and(trashed(userId), eq(passwords.id, id)))
    .get();
}

/**
 * Brings a trashed entry back: live again, stamped now with the owner's clock, so every device's
 * delta pull gets it as a full entry. Guarded like a create (the live-entry limit and the byte
 * quota) in the same statement. False when it did not apply (the caller tells why).
 */
export async function restoreTrashed(
  db: Db,
  hubs: LiveSyncBindings,
  userId: string,
  id: string,
  limits: VaultLimits,
  at: string,
): Promise<boolean> {
  const [advanced, result] = await db.batch([
    advanceClock(db, userId),
    db
      .update(passwords)
      .set({ deletedAt: null, updatedAt: at, changeSeq: clockValue(userId) })
      .where(
        and(
          trashed(userId),
          eq(passwords.id, id),
          sql`${liveEntries(userId)} < ${limits.entries}`,
          bytesGuard(userId, { deletedAt: null }, limits.bytes),
        ),
      ),
  ]);
  const applied = rowsChanged(result) > 0;
  if (applied) announceClocks(hubs, advanced);
  return applied;
}

/** Up to `limit` of the user's trashed ids, oldest deletion first (emptying goes by chunks). */
export async function trashedIds(db: Db, userId: string, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: passwords.id })
    .from(passwords)
    .where(trashed(userId))
    .orderBy(passwords.deletedAt)
    .limit(limit)
    .all();
  return rows.map((r) => r.id);
}

/** Across all owners on this database: trashed rows deleted before `beforeIso`. */
export async function expiredTrash(
  db: Db,
  beforeIso: string,
  limit: number,
): Promise<{ id: string; userId: string }[]> {
  return db
    .select({ id: passwords.id, userId: passwords.userId })
    .from(passwords)
    .where(
      and(
        isNotNull(passwords.deletedAt),
        isNull(passwords.purgedAt),
        lt(passwords.deletedAt, beforeIso),
      ),
    )
    .limit(limit)
    .all();
}

/** The R2 keys of these entries' attachments (ids are global, so the parent id names them). */
export async function attachmentKeys(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ key: attachments.r2Key })
    .from(attachments)
    .where(and(eq(attachments.parentType, "password"), inArray(attachments.parentId, ids)))
    .all();
  return rows.map((r) => r.key);
}

/**
 * The database half of a purge, once the attachments' objects are gone from R2: their rows, the
 * entries' host hashes, and the entries' ciphertext and plaintext fields, in one transaction. Only
 * rows still in the owner's trash are touched, so a restore that won the race keeps everything.
 * Returns the ids purged.
 */
export async function purgeTrashed(
  db: Db,
  userId: string,
  ids: string[],
  at: string,
): Promise<number> {
  if (ids.length === 0) return 0;
  const still = db
    .select({ id: passwords.id })
    .from(passwords)
    .where(and(trashed(userId), inArray(passwords.id, ids)));
  const [, , result] = await db.batch([
    db
      .delete(attachments)
      .where(and(eq(attachments.parentType, "password"), inArray(attachments.parentId, still))),
    db
      .delete(passwordHosts)
      .where(and(eq(passwordHosts.userId, userId), inArray(passwordHosts.passwordId, still))),
    db
      .update(passwords)
      .set({
        purgedAt: at,
        name: "",
        website: null,
        url: null,
        username: null,
        tags: [],
        wrappedItemKey: null,
        encryptedData: null,
        domainHash: null,
        nameHash: null,
        usernameHash: null,
        searchTokens: [],
        passkeyLabel: null,
        host: null,
      })
      .where(and(trashed(userId), inArray(passwords.id, ids))),
  ]);
  return rowsChanged(result);
}
