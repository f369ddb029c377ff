import { and, asc, count, eq, gt, inArray, isNotNull, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { passwords, type NewPasswordRow, type PasswordRow } from "../../db/schema";
import { advanceClock, catchUpClock, clockValue, readClock } from "../../db/change-clock";
import { batchable } from "../passwords";
import { rowsChanged } from "../../db/d1";

export { advanceClock, readClock };

/** The columns a sync change is built from. */
const syncColumns = {
  id: passwords.id,
  name: passwords.name,
  website: passwords.website,
  url: passwords.url,
  username: passwords.username,
  tags: passwords.tags,
  encryptionVersion: passwords.encryptionVersion,
  wrappedItemKey: passwords.wrappedItemKey,
  encryptedData: passwords.encryptedData,
  hasTotp: passwords.hasTotp,
  hasPasskey: passwords.hasPasskey,
  createdAt: passwords.createdAt,
  updatedAt: passwords.updatedAt,
  deletedAt: passwords.deletedAt,
};
export type SyncRow = Pick<PasswordRow, keyof typeof syncColumns>;

/**
 * A pull: the clock is brought up to now and read in the same transaction as the changes, so the
 * returned clock covers exactly the writes this snapshot contains.
 */
export async function pull(db: Db, userId: string, sinceMs: number | null, nowMs: number): Promise<{ clock: number; rows: SyncRow[] }> {
  const where =
    sinceMs === null
      ? and(eq(passwords.userId, userId), isNull(passwords.deletedAt))
      : and(eq(passwords.userId, userId), gt(passwords.changeSeq, sinceMs));
  const [, clockRows, rows] = await db.batch([
    catchUpClock(db, userId, nowMs),
    readClock(db, userId),
    db.select(syncColumns).from(passwords).where(where).orderBy(asc(passwords.changeSeq), asc(passwords.id)),
  ]);
  return { clock: clockRows[0]?.clock ?? nowMs, rows };
}

/**
 * `id IN (...)` with the list as one JSON parameter: D1 binds at most 100 parameters per statement,
 * and a push names up to 100 ids besides the owner.
 */
const idIn = (ids: string[]) => sql`${passwords.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** The user's rows with these ids, live or deleted. */
export async function findMany(db: Db, userId: string, ids: string[]): Promise<PasswordRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(passwords)
    .where(and(eq(passwords.userId, userId), idIn(ids)))
    .all();
}

/**
 * The user's rows with these ids (live or deleted), and which of the other ids another user already
 * holds, in one round trip. Ids are global primary keys and clients choose them on create, so the
 * second query is the one that looks past the owner; it returns ids only, never a row.
 */
export async function lookup(db: Db, userId: string, ids: string[]): Promise<{ mine: PasswordRow[]; foreign: Set<string>; liveCount: number }> {
  if (ids.length === 0) return { mine: [], foreign: new Set(), liveCount: 0 };
  const [mine, others, live] = await db.batch([
    db.select().from(passwords).where(and(eq(passwords.userId, userId), idIn(ids))),
    db.select({ id: passwords.id }).from(passwords).where(and(idIn(ids), sql`${passwords.userId} <> ${userId}`)),
    db.select({ n: count() }).from(passwords).where(and(eq(passwords.userId, userId), isNull(passwords.deletedAt))),
  ]);
  return { mine, foreign: new Set(others.map((r) => r.id)), liveCount: live[0]?.n ?? 0 };
}

/** The guard of an optimistic write: the row is still the version the decision was made on. */
function sameVersion(userId: string, prev: Pick<PasswordRow, "id" | "updatedAt" | "deletedAt">): SQL | undefined {
  return and(
    eq(passwords.userId, userId),
    eq(passwords.id, prev.id),
    eq(passwords.updatedAt, prev.updatedAt),
    prev.deletedAt === null ? isNull(passwords.deletedAt) : isNotNull(passwords.deletedAt),
  );
}

export function updateStatement(db: Db, userId: string, prev: PasswordRow, set: Partial<NewPasswordRow>) {
  return db
    .update(passwords)
    .set({ ...set, changeSeq: clockValue(userId) })
    .where(sameVersion(userId, prev));
}

export function tombstoneStatement(db: Db, userId: string, prev: PasswordRow, deletedAt: string, updatedAt: string) {
  return db
    .update(passwords)
    .set({ deletedAt, updatedAt, changeSeq: clockValue(userId) })
    .where(sameVersion(userId, prev));
}

/**
 * Inserts a whole import batch in one statement, so it goes in whole or not at all: the rows travel
 * as one JSON parameter (D1 binds at most 100 per statement), and the statement inserts nothing
 * unless all of them fit under the entry limit. Must follow `advanceClock` in the same batch.
 */
export function bulkInsertStatement(db: Db, userId: string, rows: PasswordRow[], max: number, opts: { skipTakenIds?: boolean } = {}) {
  const payload = JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      name: r.name,
      website: r.website,
      url: r.url,
      tags: r.tags,
      key: r.wrappedItemKey,
      data: r.encryptedData,
      dh: r.domainHash,
      nh: r.nameHash,
      uh: r.usernameHash,
      st: r.searchTokens,
      strength: r.strength,
      host: r.host,
      at: r.createdAt,
      upd: r.updatedAt,
    })),
  );
  return batchable(
    db,
    sql`INSERT INTO passwords (id, user_id, name, website, url, tags, encryption_version, wrapped_item_key, encrypted_data,
      domain_hash, name_hash, username_hash, search_tokens, strength, host, created_at, updated_at, change_seq)
    SELECT json_extract(value, '$.id'), ${userId}, json_extract(value, '$.name'), json_extract(value, '$.website'),
      json_extract(value, '$.url'), json_extract(value, '$.tags'), 3, json_extract(value, '$.key'), json_extract(value, '$.data'),
      json_extract(value, '$.dh'), json_extract(value, '$.nh'), json_extract(value, '$.uh'), json_extract(value, '$.st'),
      json_extract(value, '$.strength'), json_extract(value, '$.host'), json_extract(value, '$.at'), json_extract(value, '$.upd'),
      ${clockValue(userId)}
    FROM json_each(${payload})
    WHERE (SELECT count(*) FROM passwords WHERE user_id = ${userId} AND deleted_at IS NULL) + ${rows.length} <= ${max}
    ${opts.skipTakenIds ? sql`ON CONFLICT (id) DO NOTHING` : sql``}`,
  );
}

/** Every live entry, oldest first, for export. */
export async function listAllLive(db: Db, userId: string): Promise<PasswordRow[]> {
  return db
    .select()
    .from(passwords)
    .where(and(eq(passwords.userId, userId), isNull(passwords.deletedAt)))
    .orderBy(asc(passwords.createdAt), asc(passwords.id))
    .all();
}

/**
 * Deletes, across all users, up to `limit` tombstones whose deletion was committed before
 * `beforeMs` on their owner's clock. Returns how many went.
 */
export async function purgeTombstones(db: Db, beforeMs: number, limit: number): Promise<number> {
  const victims = db
    .select({ id: passwords.id })
    .from(passwords)
    .where(and(isNotNull(passwords.deletedAt), lt(passwords.changeSeq, beforeMs)))
    .limit(limit);
  const result = await db.delete(passwords).where(inArray(passwords.id, victims)).run();
  return rowsChanged(result);
}
