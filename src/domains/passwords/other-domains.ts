import { and, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { clockValue } from "../../db/change-clock";
import { batchable } from "../../db/d1";
import type { NewPasswordRow } from "../../db/schema";
import { passwords } from "../../db/schema/passwords";
import { PLACEHOLDER_ENCRYPTION_VERSION } from "./service";

/*
 * What other domains read and write of a user's entries. The table is this domain's alone
 * (.dependency-cruiser.cjs), so every write of an entry is found here. A write is a statement
 * builder, not a call that runs: the caller puts it in its own batch beside its own rows, which D1
 * commits as one transaction, so a failure part-way still leaves nothing half done. A write that
 * stamps `change_seq` follows `advanceClock` in that batch (src/db/change-clock.ts).
 */

const owned = (userId: string, id: string) =>
  and(eq(passwords.userId, userId), eq(passwords.id, id));
const live = (userId: string, id: string) => and(owned(userId, id), isNull(passwords.deletedAt));

/** Whether the user has this entry: live, or also deleted when `includeDeleted` is set. */
export async function ownsEntry(
  db: Db,
  userId: string,
  id: string,
  includeDeleted = false,
): Promise<boolean> {
  const row = await db
    .select({ id: passwords.id })
    .from(passwords)
    .where(includeDeleted ? owned(userId, id) : live(userId, id))
    .get();
  return !!row;
}

/** The user's live entry's id, or no row, as a query to batch with the caller's own read. */
export function liveEntryQuery(db: Db, userId: string, id: string) {
  return db.select({ id: passwords.id }).from(passwords).where(live(userId, id));
}

/** The fields discovery compares scanned accounts against: every live entry, oldest first. */
export type VaultRef = {
  id: string;
  name: string;
  website: string | null;
  url: string | null;
  username: string | null;
  encryptionVersion: number;
  host: string | null;
};

export async function vaultRefs(db: Db, userId: string): Promise<VaultRef[]> {
  return db
    .select({
      id: passwords.id,
      name: passwords.name,
      website: passwords.website,
      url: passwords.url,
      username: passwords.username,
      encryptionVersion: passwords.encryptionVersion,
      host: passwords.host,
    })
    .from(passwords)
    .where(and(eq(passwords.userId, userId), isNull(passwords.deletedAt)))
    .orderBy(passwords.createdAt)
    .all();
}

/** What a share shows of the owner's live entries with these ids (a deleted one is left out). */
export async function sharedAccounts(db: Db, ownerId: string, ids: string[]) {
  return db
    .select({
      id: passwords.id,
      accountName: passwords.name,
      accountWebsite: passwords.website,
      accountUrl: passwords.url,
      accountEncryptedData: passwords.encryptedData,
    })
    .from(passwords)
    .where(
      and(eq(passwords.userId, ownerId), inArray(passwords.id, ids), isNull(passwords.deletedAt)),
    )
    .all();
}

/** The entry's share count, as the directory counted it; not a vault change (no stamp). */
export function shareCountStatement(db: Db, ownerId: string, id: string, count: number) {
  return db.update(passwords).set({ shareCount: count }).where(owned(ownerId, id));
}

/** Marks whether the live entry has a TOTP configuration, stamped as a vault change. */
export function hasTotpStatement(
  db: Db,
  userId: string,
  id: string,
  hasTotp: boolean,
  updatedAt: string,
) {
  return db
    .update(passwords)
    .set({ hasTotp, updatedAt, changeSeq: clockValue(userId) })
    .where(live(userId, id));
}

/** A write recipient's edit of the owner's live entry, stamped on the owner's clock. */
export function sharedEntryUpdateStatement(
  db: Db,
  ownerId: string,
  id: string,
  set: Partial<NewPasswordRow>,
) {
  return db
    .update(passwords)
    .set({ ...set, changeSeq: clockValue(ownerId) })
    .where(live(ownerId, id));
}

export type Placeholder = { id: string; domain: string; name: string; username: string | null };

/**
 * Placeholder entries (discovery's add-to-vault), all or nothing at the entry limit without a read
 * before them: the first goes in only while the vault has room for all of them (the count is the
 * trigger-kept `vault_counters.live`, read inside the statement), every later one only when that
 * first row exists. `firstStored` is that condition, for the caller's own writes that must go in
 * with them. D1 runs the batch as one serialised transaction, so once the first is in, the rest
 * fit, and when it is refused nothing is written.
 */
export function placeholderInserts(
  db: Db,
  userId: string,
  items: Placeholder[],
  max: number,
  now: string,
): { inserts: ReturnType<typeof batchable>[]; firstStored: SQL } {
  const first = items[0].id;
  const room = sql`(SELECT coalesce((SELECT live FROM vault_counters WHERE user_id = ${userId}), 0)) + ${items.length} <= ${max}`;
  const firstStored = sql`EXISTS (SELECT 1 FROM passwords WHERE id = ${first} AND user_id = ${userId})`;
  const inserts = items.map((p) =>
    batchable(
      db,
      sql`
      INSERT INTO passwords (id, user_id, name, website, url, username, tags, encryption_version, search_tokens, host, created_at, updated_at, change_seq)
      SELECT ${p.id}, ${userId}, ${p.name}, ${p.domain}, ${"https://" + p.domain}, ${p.username}, '[]', ${PLACEHOLDER_ENCRYPTION_VERSION}, '[]',
        ${p.domain}, ${now}, ${now}, ${clockValue(userId)}
      WHERE ${p.id === first ? room : firstStored}`,
    ),
  );
  return { inserts, firstStored };
}
