import { and, eq, inArray, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sessionShareLinks, sessionShares, type SessionShareRow } from "../../db/schema";

/** `sealed_credentials` once the credentials have done their job (or for a share that never had any). */
export const ERASED = "";

export async function insert(db: Db, row: SessionShareRow) {
  await db.insert(sessionShares).values(row);
}

export async function remove(db: Db, ownerId: string, id: string) {
  await db
    .delete(sessionShares)
    .where(and(eq(sessionShares.id, id), eq(sessionShares.ownerId, ownerId)));
}

export async function findOwned(
  db: Db,
  ownerId: string,
  id: string,
): Promise<SessionShareRow | undefined> {
  return db
    .select()
    .from(sessionShares)
    .where(and(eq(sessionShares.id, id), eq(sessionShares.ownerId, ownerId)))
    .get();
}

/** A viewer names a share by its token alone; the hash is the capability, not a user. */
export async function findByTokenHash(
  db: Db,
  tokenHash: string,
): Promise<SessionShareRow | undefined> {
  return db.select().from(sessionShares).where(eq(sessionShares.tokenHash, tokenHash)).get();
}

export async function update(db: Db, ownerId: string, id: string, set: Partial<SessionShareRow>) {
  await db
    .update(sessionShares)
    .set({ ...set, updatedAt: new Date().toISOString() })
    .where(and(eq(sessionShares.id, id), eq(sessionShares.ownerId, ownerId)));
}

/** Directory: written before the share row, so every share can be found from its token or id. */
export async function link(directory: Db, row: SessionShareRow) {
  await directory.insert(sessionShareLinks).values({
    shareId: row.id,
    tokenHash: row.tokenHash,
    ownerId: row.ownerId,
    expiresAt: row.expiresAt,
  });
}

export async function unlink(directory: Db, id: string) {
  await directory.delete(sessionShareLinks).where(eq(sessionShareLinks.shareId, id));
}

/** Directory: whose shard holds the share a token or an id names. */
export async function ownerOf(
  directory: Db,
  by: { tokenHash: string } | { id: string },
): Promise<string | undefined> {
  const where =
    "id" in by
      ? eq(sessionShareLinks.shareId, by.id)
      : eq(sessionShareLinks.tokenHash, by.tokenHash);
  return (
    await directory
      .select({ ownerId: sessionShareLinks.ownerId })
      .from(sessionShareLinks)
      .where(where)
      .get()
  )?.ownerId;
}

/** Directory: links of shares that expired before `before` (their rows are purged by then, or soon). */
export async function purgeLinks(directory: Db, before: string, limit: number): Promise<number> {
  const ids = directory
    .select({ id: sessionShareLinks.shareId })
    .from(sessionShareLinks)
    .where(lt(sessionShareLinks.expiresAt, before))
    .limit(limit);
  const r = await directory
    .delete(sessionShareLinks)
    .where(inArray(sessionShareLinks.shareId, ids))
    .run();
  return r.meta.changes ?? 0;
}

/** Ended shares whose end is older than `before`, at most `limit` per call; returns how many went. */
export async function purgeEnded(
  db: Db,
  statuses: readonly string[],
  before: string,
  limit: number,
): Promise<number> {
  const ids = db
    .select({ id: sessionShares.id })
    .from(sessionShares)
    .where(
      and(
        inArray(sessionShares.status, statuses as SessionShareRow["status"][]),
        lt(sessionShares.endedAt, before),
      ),
    )
    .limit(limit);
  const r = await db.delete(sessionShares).where(inArray(sessionShares.id, ids)).run();
  return r.meta.changes ?? 0;
}
