import { and, asc, desc, eq, getTableName, sql, type SQL } from "drizzle-orm";
import { alias, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { pageOf, type Page, type PageParams } from "../kernel/pagination";
import { validationError } from "../lib/errors";
import type { Db } from "./client";

/**
 * Keyset pagination (docs/decisions/platform.md, "Cursor pagination"): a page continues strictly after the
 * cursor row in a total order, so rows written or removed elsewhere in the list never shift a page
 * the way OFFSET would, and reading page n costs the same as page 1.
 */
export type Keyed = SQLiteTable & { id: SQLiteColumn };
type Key = SQLiteColumn | SQL;

/** Sort keys in one direction; the id is appended as the last key, which makes the order total. */
export type Order<T extends Keyed> = { dir: "asc" | "desc"; keys: (t: T) => Key[] };

/**
 * Which rows a cursor may name: the caller's (and the list's immutable filters). Filters that can
 * change, such as a status, stay out, so an item that left the filtered list is still a position.
 */
export type Scope<T extends Keyed> = (t: T) => SQL | undefined;

const CURSOR_ROW = "cursor_row";

const keysOf = <T extends Keyed>(order: Order<T>, t: T): Key[] => [...order.keys(t), t.id];

export function orderKeys<T extends Keyed>(table: T, order: Order<T>): SQL[] {
  const dir = order.dir === "asc" ? asc : desc;
  return keysOf(order, table).map((k) => dir(k));
}

/**
 * Rows after the cursor row, as a row-value comparison against that row's keys read in the same
 * statement. The cursor row is looked up by id within `scope`, so an id outside it matches nothing.
 */
export function afterCursor<T extends Keyed>(
  table: T,
  order: Order<T>,
  scope: Scope<T>,
  cursor: string,
): SQL {
  // An alias, so the subquery's columns cannot be read as the outer query's.
  const c = alias(table, CURSOR_ROW) as unknown as T;
  const op = order.dir === "asc" ? sql`>` : sql`<`;
  const keys = (t: T) => sql.join(keysOf(order, t), sql`, `);
  const from = sql`${sql.identifier(getTableName(table))} AS ${sql.identifier(CURSOR_ROW)}`;
  return sql`(${keys(table)}) ${op} (SELECT ${keys(c)} FROM ${from} WHERE ${and(eq(c.id, cursor), scope(c))})`;
}

/** A cursor naming no row the caller may list: unknown, deleted, or someone else's. */
export const badCursor = () =>
  validationError("Request validation failed", [
    { field: "cursor", message: "is not the id of an item in this list" },
  ]);

export async function requireCursor<T extends Keyed>(
  db: Db,
  table: T,
  scope: Scope<T>,
  cursor: string,
): Promise<void> {
  const row = await db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.id, cursor), scope(table)))
    .get();
  if (!row) throw badCursor();
}

export type PageStep = { after: SQL | undefined; orderBy: SQL[]; take: number };

/**
 * One page of a list. `fetch` runs the list's own query with the keyset condition, the order and
 * the row count given; the cursor is checked alongside it, so a bad cursor costs no extra round trip.
 */
export async function keysetPage<T extends Keyed, R extends { id: string }>(
  db: Db,
  spec: { table: T; order: Order<T>; scope: Scope<T>; page: PageParams },
  fetch: (step: PageStep) => Promise<R[]>,
): Promise<Page<R>> {
  const { table, order, scope, page } = spec;
  const step = {
    after: page.cursor ? afterCursor(table, order, scope, page.cursor) : undefined,
    orderBy: orderKeys(table, order),
    take: page.limit + 1,
  };
  const [rows] = await Promise.all([
    fetch(step),
    page.cursor ? requireCursor(db, table, scope, page.cursor) : undefined,
  ]);
  return pageOf(rows, page.limit);
}
