import { and, eq, inArray, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sessionShares, type SessionShareRow } from "../../db/schema";

/** `sealed_credentials` once the credentials have done their job (or for a share that never had any). */
export const ERASED = "";

export async function insert(db: Db, row: SessionShareRow) {
  await db.insert(sessionShares).values(row);
}

export async function remove(db: Db, ownerId: string, id: string) {
  await db.delete(sessionShares).where(and(eq(sessionShares.id, id), eq(sessionShares.ownerId, ownerId)));
}

export async function findOwned(db: Db, ownerId: string, id: string): Promise<SessionShareRow | undefined> {
  return db.select().from(sessionShares).where(and(eq(sessionShares.id, id), eq(sessionShares.ownerId, ownerId))).get();
}

/** A viewer names a share by its token alone; the hash is the capability, not a user. */
export async function findByTokenHash(db: Db, tokenHash: string): Promise<SessionShareRow | undefined> {
  return db.select().from(sessionShares).where(eq(sessionShares.tokenHash, tokenHash)).get();
}

export async function update(db: Db, ownerId: string, id: string, set: Partial<SessionShareRow>) {
  await db
    .update(sessionShares)
    .set({ ...set, updatedAt: new Date().toISOString() })
    .where(and(eq(sessionShares.id, id), eq(sessionShares.ownerId, ownerId)));
}

/** Only to route a WebSocket to its room; the room itself checks the one-time ticket. */
export async function findById(db: Db, id: string): Promise<{ id: string } | undefined> {
  return db.select({ id: sessionShares.id }).from(sessionShares).where(eq(sessionShares.id, id)).get();
}

/** Ended shares whose end is older than `before`, at most `limit` per call; returns how many went. */
export async function purgeEnded(db: Db, statuses: readonly string[], before: string, limit: number): Promise<number> {
  const ids = db
    .select({ id: sessionShares.id })
    .from(sessionShares)
    .where(and(inArray(sessionShares.status, statuses as SessionShareRow["status"][]), lt(sessionShares.endedAt, before)))
    .limit(limit);
  const r = await db.delete(sessionShares).where(inArray(sessionShares.id, ids)).run();
  return r.meta.changes ?? 0;
}
