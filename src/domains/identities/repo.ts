import { and, eq, getTableColumns, ne, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import {
  bytesOf,
  identities,
  IDENTITY_SIZE_COLUMNS,
  type IdentityRow,
  type NewIdentityRow,
} from "../../db/schema";
import { rowsChanged } from "../../db/d1";
import { keysetPage, type Order } from "../../db/keyset";
import type { Page, PageParams } from "../../kernel/pagination";

type Status = IdentityRow["status"];

/** Newest first; `created_at` never changes, so a page boundary never moves. */
const NEWEST: Order<typeof identities> = { dir: "desc", keys: (t) => [t.createdAt] };

export async function list(
  db: Db,
  userId: string,
  status: Status | undefined,
  page: PageParams,
): Promise<Page<IdentityRow>> {
  const mine = eq(identities.userId, userId);
  return keysetPage(
    db,
    { table: identities, order: NEWEST, scope: (t) => eq(t.userId, userId), page },
    ({ after, orderBy, take }) =>
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
  return db
    .select()
    .from(identities)
    .where(and(eq(identities.userId, userId), eq(identities.id, id)))
    .get();
}

const columns = getTableColumns(identities);
type Key = keyof typeof columns;
const keyOf = new Map(Object.entries(columns).map(([k, c]) => [c.name, k as Key]));
const identityBytes = (userId: string) =>
  sql`coalesce((SELECT identity_bytes FROM vault_counters WHERE user_id = ${userId}), 0)`;

/** The counted bytes of the row with `values` (by property name) in place of its own columns. */
function bytesWith(values: Partial<Record<Key, unknown>>): SQL {
  return bytesOf(
    IDENTITY_SIZE_COLUMNS.map((name) => {
      const key = keyOf.get(name)!;
      return key in values && values[key] !== undefined
        ? sql`${values[key] ?? null}`
        : sql`${columns[key]}`;
    }),
  );
}

/**
 * Inserts only while the user's identities stay within `maxBytes` (migration 0015's counter, read
 * in the same statement, so parallel creates cannot pass it). False when refused.
 */
export async function insertWithinQuota(
  db: Db,
  row: NewIdentityRow & { userId: string },
  maxBytes: number,
): Promise<boolean> {
  const entries = Object.entries(row).filter(([, v]) => v !== undefined) as [Key, unknown][];
  const names = sql.join(
    entries.map(([k]) => sql.raw(columns[k].name)),
    sql`, `,
  );
  const values = sql.join(
    entries.map(([, v]) => sql`${v ?? null}`),
    sql`, `,
  );
  const size = bytesOf(
    IDENTITY_SIZE_COLUMNS.map(
      (name) => sql`${(row as Record<string, unknown>)[keyOf.get(name)!] ?? null}`,
    ),
  );
  const res = await db.run(
    sql`INSERT INTO identities (${names}) SELECT ${values} WHERE ${identityBytes(row.userId)} + ${size} <= ${maxBytes}`,
  );
  return rowsChanged(res) > 0;
}

/**
 * Updates only while the identity is not nuked, so a nuke racing a PATCH cannot be undone, and
 * only within the byte quota unless the row does not grow (a nuke, which clears it, always passes).
 */
export async function updateUnlessNuked(
  db: Db,
  userId: string,
  id: string,
  set: Partial<NewIdentityRow>,
  maxBytes: number,
): Promise<IdentityRow | undefined> {
  const before = bytesWith({});
  const after = bytesWith(set);
  return db
    .update(identities)
    .set(set)
    .where(
      and(
        eq(identities.userId, userId),
        eq(identities.id, id),
        ne(identities.status, "nuked"),
        or(
          sql`${identityBytes(userId)} - ${before} + ${after} <= ${maxBytes}`,
          sql`${after} <= ${before}`,
        ),
      ),
    )
    .returning()
    .get();
}

export async function remove(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db
    .delete(identities)
    .where(and(eq(identities.userId, userId), eq(identities.id, id)))
    .run();
  return rowsChanged(result) > 0;
}
