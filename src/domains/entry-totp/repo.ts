import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { entryTotp, type EntryTotpRow } from "../../db/schema";
import { advanceClock } from "../../db/change-clock";
import { announceClocks, type LiveSyncBindings } from "../../db/clock-announce";
import { rowsChanged } from "../../db/d1";
import { hasTotpStatement, liveEntryQuery } from "../passwords";

/** The caller's live entry and its TOTP configuration, if any; undefined when the entry is not theirs. */
export async function findEntry(
  db: Db,
  userId: string,
  passwordId: string,
): Promise<{ totp: EntryTotpRow | null } | undefined> {
  // One round trip: the entry (the passwords domain's query) and its configuration.
  const [entry, totp] = await db.batch([
    liveEntryQuery(db, userId, passwordId),
    db
      .select()
      .from(entryTotp)
      .where(and(eq(entryTotp.passwordId, passwordId), eq(entryTotp.userId, userId))),
  ]);
  return entry.length > 0 ? { totp: totp[0] ?? null } : undefined;
}

/** Stores (or replaces) the configuration and marks the entry, in one transaction. */
export async function upsert(db: Db, hubs: LiveSyncBindings, row: EntryTotpRow): Promise<void> {
  const { passwordId, createdAt: _createdAt, ...changes } = row;
  const [advanced] = await db.batch([
    advanceClock(db, row.userId),
    db
      .insert(entryTotp)
      .values(row)
      .onConflictDoUpdate({
        target: entryTotp.passwordId,
        set: changes,
        setWhere: eq(entryTotp.userId, row.userId),
      }),
    hasTotpStatement(db, row.userId, passwordId, true, row.updatedAt),
  ]);
  announceClocks(hubs, advanced);
}

export async function remove(
  db: Db,
  hubs: LiveSyncBindings,
  userId: string,
  passwordId: string,
  now: string,
): Promise<boolean> {
  const [advanced, deleted] = await db.batch([
    advanceClock(db, userId),
    db
      .delete(entryTotp)
      .where(and(eq(entryTotp.userId, userId), eq(entryTotp.passwordId, passwordId))),
    hasTotpStatement(db, userId, passwordId, false, now),
  ]);
  const removed = rowsChanged(deleted) > 0;
  if (removed) announceClocks(hubs, advanced);
  return removed;
}
