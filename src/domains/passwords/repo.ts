import { and, count, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { passwords, type NewPasswordRow, type PasswordRow } from "../../db/schema";
import { advanceClock, clockValue } from "../../db/change-clock";
import { rawD1, rowsChanged } from "../../db/d1";

const live = (userId: string) => and(eq(passwords.userId, userId), isNull(passwords.deletedAt));

export async function listLive(db: Db, userId: string, offset: number, limit: number): Promise<{ rows: PasswordRow[]; total: number }> {
  const [rows, totals] = await db.batch([
    db.select().from(passwords).where(live(userId)).orderBy(desc(passwords.createdAt), desc(passwords.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(passwords).where(live(userId)),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findLive(db: Db, userId: string, id: string): Promise<PasswordRow | undefined> {
  return db.select().from(passwords).where(and(live(userId), eq(passwords.id, id))).get();
}

/**
 * Inserts only while the user holds fewer than `max` live entries. The check and the insert are one
 * statement, so concurrent creates cannot overshoot the limit. The row is stamped with the user's
 * commit clock, so it must run in a batch that starts with `advanceClock`.
 */
function insertStatement(db: Db, row: NewPasswordRow & { userId: string }, max: number) {
  return batchable(db, sql`
    INSERT INTO passwords (id, user_id, name, website, url, username, tags, encryption_version, wrapped_item_key,
      encrypted_data, domain_hash, name_hash, username_hash, search_tokens, strength, host, created_at, updated_at, change_seq)
    SELECT ${row.id}, ${row.userId}, ${row.name}, ${row.website ?? null}, ${row.url ?? null}, ${row.username ?? null},
      ${JSON.stringify(row.tags ?? [])}, ${row.encryptionVersion ?? 3}, ${row.wrappedItemKey ?? null},
      ${row.encryptedData ?? null}, ${row.domainHash ?? null}, ${row.nameHash ?? null}, ${row.usernameHash ?? null},
      ${JSON.stringify(row.searchTokens ?? [])}, ${row.strength ?? null}, ${row.host ?? null},
      ${row.createdAt}, ${row.updatedAt}, ${clockValue(row.userId)}
    WHERE (SELECT count(*) FROM passwords WHERE user_id = ${row.userId} AND deleted_at IS NULL) < ${max}`);
}

/**
 * drizzle's raw `db.run(sql)` has no prepared D1 statement, so `db.batch` cannot bind it; this
 * gives it one, keeping the raw query usable both alone and inside a batch.
 */
export function batchable(db: Db, query: SQL) {
  const raw = db.run(query);
  const prepared = raw as unknown as { stmt: D1PreparedStatement; getQuery(): { sql: string } };
  prepared.stmt = rawD1(db).prepare(prepared.getQuery().sql);
  return raw;
}

export async function insertUnderLimit(db: Db, row: NewPasswordRow & { userId: string }, max: number): Promise<boolean> {
  const [, result] = await db.batch([advanceClock(db, row.userId), insertStatement(db, row, max)]);
  return rowsChanged(result) > 0;
}

export async function updateLive(db: Db, userId: string, id: string, set: Partial<NewPasswordRow>): Promise<boolean> {
  const [, result] = await db.batch([
    advanceClock(db, userId),
    db
      .update(passwords)
      .set({ ...set, changeSeq: clockValue(userId) })
      .where(and(live(userId), eq(passwords.id, id))),
  ]);
  return rowsChanged(result) > 0;
}

export async function softDelete(db: Db, userId: string, id: string, at: string): Promise<boolean> {
  const [, result] = await db.batch([
    advanceClock(db, userId),
    db
      .update(passwords)
      .set({ deletedAt: at, updatedAt: at, changeSeq: clockValue(userId) })
      .where(and(live(userId), eq(passwords.id, id))),
  ]);
  return rowsChanged(result) > 0;
}

export async function findByHosts(db: Db, userId: string, hosts: string[]) {
  return db
    .select({
      id: passwords.id,
      name: passwords.name,
      username_hash: passwords.usernameHash,
      url: passwords.url,
      website: passwords.website,
      wrapped_item_key: passwords.wrappedItemKey,
      encrypted_data: passwords.encryptedData,
    })
    .from(passwords)
    .where(and(live(userId), inArray(passwords.host, hosts)))
    .limit(100)
    .all();
}
