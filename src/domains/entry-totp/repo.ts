import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { passwords, entryTotp, type EntryTotpRow } from "../../db/schema";
import { advanceClock, clockValue } from "../../db/change-clock";
import { rowsChanged } from "../../db/d1";

const liveEntry = (userId: string, passwordId: string) =>
  and(eq(passwords.userId, userId), eq(passwords.id, passwordId), isNull(passwords.deletedAt));

/** The caller's live entry and its TOTP configuration, if any; undefined when the entry is not theirs. */
export async function findEntry(
  db: Db,
  userId: string,
  passwordId: string,
): Promise<{ totp: EntryTotpRow | null } | undefined> {
  const row = await db
    .select({ id: passwords.id, totp: entryTotp })
    .from(passwords)
    .leftJoin(entryTotp, and(eq(entryTotp.passwordId, passwords.id), eq(entryTotp.userId, userId)))
    .where(liveEntry(userId, passwordId))
    .get();
  return row ? { totp: row.totp } : undefined;
}

/** Stores (or replaces) the configuration and marks the entry, in one transaction. */
export async function upsert(db: Db, row: EntryTotpRow): Promise<void> {
  const { passwordId, createdAt: _createdAt, ...changes } = row;
  await db.batch([
    advanceClock(db, row.userId),
    db
      .insert(entryTotp)
      .values(row)
      .onConflictDoUpdate({
        target: entryTotp.passwordId,
        set: changes,
        setWhere: eq(entryTotp.userId, row.userId),
      }),
    db
      .update(passwords)
      .set({ hasTotp: true, updatedAt: row.updatedAt, changeSeq: clockValue(row.userId) })
      .where(liveEntry(row.userId, passwordId)),
  ]);
}

export async function remove(
  db: Db,
  userId: string,
  passwordId: string,
  now: string,
): Promise<boolean> {
  const [, deleted] = await db.batch([
    advanceClock(db, userId),
    db
      .delete(entryTotp)
      .where(and(eq(entryTotp.userId, userId), eq(entryTotp.passwordId, passwordId))),
    db
      .update(passwords)
      .set({ hasTotp: false, updatedAt: now, changeSeq: clockValue(userId) })
      .where(liveEntry(userId, passwordId)),
  ]);
  return rowsChanged(deleted) > 0;
}
