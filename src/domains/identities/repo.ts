import { and, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { identities, type IdentityRow, type NewIdentityRow } from "../../db/schema";
import { rowsChanged } from "../../db/d1";
import { keysetPage, type Order } from "../../db/keyset";
import type { Page, PageParams } from "../../kernel/pagination";

type Status = IdentityRow["status"];

/** Newest first; `created_at` never changes, so a page boundary never moves. */
const NEWEST: Order<typeof identities> = { dir: "desc", keys: (t) => [t.createdAt] };

export async function list(db: Db, userId: string, status: Status | undefined, page: PageParams): Promise<Page<IdentityRow>> {
  const mine = eq(identities.userId, userId);
  return keysetPage(db, { table: identities, order: NEWEST, scope: (t) => eq(t.userId, userId), page }, ({ after, orderBy, take }) =>
    db
      .select()
      .from(identities)
      .where(and(mine, status ? eq(identities.status, status) : undefined, after))
      .orderBy(...orderBy)
      .limit(take)
      .all(),
  );
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
