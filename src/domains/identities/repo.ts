import { and, desc, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { identities, type IdentityRow, type NewIdentityRow } from "../../db/schema";
import { rowsChanged } from "../../db/d1";

type Status = IdentityRow["status"];

export async function list(db: Db, userId: string, status: Status | undefined): Promise<IdentityRow[]> {
  const where = status ? and(eq(identities.userId, userId), eq(identities.status, status)) : eq(identities.userId, userId);
  return db.select().from(identities).where(where).orderBy(desc(identities.createdAt), desc(identities.id)).all();
}

export async function stats(db: Db, userId: string) {
  const rows = await db
    .select({ status: identities.status, n: sql<number>`count(*)` })
    .from(identities)
    .where(eq(identities.userId, userId))
    .groupBy(identities.status)
    .all();
  const out = { total: 0, active: 0, paused: 0, nuked: 0 };
  for (const r of rows) {
    out[r.status] = r.n;
    out.total += r.n;
  }
  return out;
}

export async function find(db: Db, userId: string, id: string): Promise<IdentityRow | undefined> {
  return db.select().from(identities).where(and(eq(identities.userId, userId), eq(identities.id, id))).get();
}

export async function insert(db: Db, row: NewIdentityRow & { userId: string }): Promise<void> {
  await db.insert(identities).values(row).run();
}

/** Updates only while the identity is not nuked, so a nuke racing a PATCH cannot be undone. */
export async function updateUnlessNuked(db: Db, userId: string, id: string, set: Partial<NewIdentityRow>): Promise<IdentityRow | undefined> {
  return db
    .update(identities)
    .set(set)
    .where(and(eq(identities.userId, userId), eq(identities.id, id), ne(identities.status, "nuked")))
    .returning()
    .get();
}

export async function remove(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db.delete(identities).where(and(eq(identities.userId, userId), eq(identities.id, id))).run();
  return rowsChanged(result) > 0;
}
