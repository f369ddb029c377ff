import { createTableRelationsHelpers, extractTablesRelationalConfig } from "drizzle-orm";
import { DrizzleD1Database } from "drizzle-orm/d1";
import { SQLiteD1Session } from "drizzle-orm/d1/session";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

/** All the database layer needs of the worker's bindings. */
export type DbBindings = { DB: D1Database };

/**
 * What `drizzle(client, { schema })` derives from the schema (the relational configuration of ~30
 * tables), derived once per isolate: deriving it for each client cost 0.1–0.3 ms of CPU, paid by
 * every request (issue 21). The dialect holds only the schema's column-name cache, so one serves
 * every client.
 */
const relational = (() => {
  const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
  return { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
})();
const dialect = new SQLiteAsyncDialect();

/**
 * drizzle-orm/d1's `drizzle(client, { schema })` (0.45), without deriving the schema again, and one
 * client per binding: a client holds no state of its own (D1 has no open transactions), and its
 * constructor still builds a query builder per table. A binding wrapped for one request (the
 * Server-Timing one) gets its own client and goes with its request.
 */
const clients = new WeakMap<D1Database, Db>();

function clientOver(d1: D1Database): Db {
  let db = clients.get(d1);
  if (!db) {
    const session = new SQLiteD1Session(d1, dialect, relational, {});
    db = new DrizzleD1Database("async", dialect, session, relational) as Db;
    (db as unknown as { $client: D1Database }).$client = d1;
    clients.set(d1, db);
  }
  return db;
}

/**
 * The one place a repo gets its database. It is keyed by the user so that spreading users over
 * several D1 databases later changes this function alone (see docs/scale.md).
 */
export function dbFor(env: DbBindings, _userId: string): Db {
  return clientOver(env.DB);
}

/** For work that spans users (scheduled purges, admin registry); never for one user's records. */
export function globalDb(env: DbBindings): Db {
  return clientOver(env.DB);
}
