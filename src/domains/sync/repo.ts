import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { passwords, type NewPasswordRow, type PasswordRow } from "../../db/schema";
import { advanceClock, catchUpClock, clockValue, readClock } from "../passwords/change-clock";
import { insertStatement } from "../passwords/repo";

export { advanceClock, insertStatement, readClock };

/**
 * A pull: the clock is brought up to now and read in the same transaction as the changes, so the
 * returned clock covers exactly the writes this snapshot contains.
 */
export async function pull(db: Db, userId: string, sinceMs: number | null, nowMs: number): Promise<{ clock: number; rows: PasswordRow[] }> {
  const where =
    sinceMs === null
      ? and(eq(passwords.userId, userId), isNull(passwords.deletedAt))
      : and(eq(passwords.userId, userId), gt(passwords.changeSeq, sinceMs));
  const [, clockRows, rows] = await db.batch([
    catchUpClock(db, userId, nowMs),
    readClock(db, userId),
    db.select().from(passwords).where(where).orderBy(asc(passwords.changeSeq), asc(passwords.id)),
  ]);
  return { clock: clockRows[0]?.clock ?? nowMs, rows };
}

/** The user's rows with these ids, live or deleted. */
export async function findMany(db: Db, userId: string, ids: string[]): Promise<PasswordRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(passwords)
    .where(and(eq(passwords.userId, userId), inArray(passwords.id, ids)))
    .all();
}

/**
 * Which of these ids another user already holds. Ids are global primary keys and clients choose
 * them on create, so this existence check is the one query that looks past the owner; it returns
 * ids only, never a row.
 */
export async function idsHeldByOthers(db: Db, userId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: passwords.id })
    .from(passwords)
    .where(and(inArray(passwords.id, ids), sql`${passwords.userId} <> ${userId}`))
    .all();
  return new Set(rows.map((r) => r.id));
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
  return result.meta.changes ?? 0;
}
