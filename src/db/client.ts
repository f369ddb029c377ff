import { createTableRelationsHelpers, extractTablesRelationalConfig } from "drizzle-orm";
import { DrizzleD1Database } from "drizzle-orm/d1";
import { SQLiteD1Session } from "drizzle-orm/d1/session";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { routedD1 } from "./routed-d1";
import * as schema from "./schema";
import { bindingOf, directoryBinding, shardBindings } from "./shards";

export type Db = DrizzleD1Database<typeof schema>;

/**
 * All the database layer needs of the worker's bindings: `DB_0 … DB_{n-1}` and `DIRECTORY`, found
 * by name (src/db/shards.ts), so a deployment adds a shard in wrangler.toml alone.
 */
export type DbBindings = Record<string, unknown>;

/**
 * What `drizzle(client, { schema })` derives from the schema (the relational configuration of ~30
 * tables), derived once per isolate: deriving it for each client cost 0.1–0.3 ms of CPU, paid by
 * every request (docs/decisions/sync.md, "Sync: hot paths (delta pull, match, create, Server-Timing)"). The dialect holds only the schema's column-name cache, so one serves
 * every client.
 */
const relational = (() => {
  const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
  return { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
})();
const dialect = new SQLiteAsyncDialect();

/** drizzle-orm/d1's `drizzle(client, { schema })` (0.45), without deriving the schema again. */
function clientOf(d1: D1Database): Db {
  const session = new SQLiteD1Session(d1, dialect, relational, {});
  const db = new DrizzleD1Database("async", dialect, session, relational) as Db;
  (db as unknown as { $client: D1Database }).$client = d1;
  return db;
}

/**
 * One client per binding: a client holds no state of its own (D1 has no open transactions), and
 * its constructor still builds a query builder per table. A binding wrapped for one request (the
 * Server-Timing one) gets its own client and goes with its request.
 */
const clients = new WeakMap<D1Database, Db>();

function clientOver(d1: D1Database): Db {
  let db = clients.get(d1);
  if (!db) clients.set(d1, (db = clientOf(d1)));
  return db;
}

/**
 * The one place a repo gets a user's database: the user's shard, from the directory's map or, for
 * a user not yet recorded, by rendezvous hashing (docs/scale.md). The route is the
 * user's, so its client is made per call.
 */
export function dbFor(env: DbBindings, userId: string): Db {
  return clientOf(routedD1(env, userId));
}

/** Records that cross users (the registry's overrides, the user → shard map, mail dead letters). */
export function directoryDb(env: DbBindings): Db {
  return clientOver(bindingOf(env, directoryBinding(env)));
}

/**
 * Every shard's database, for scheduled work that spans users (tombstone purge, re-sealing),
 * which runs shard by shard. Never for one user's records: those go through dbFor.
 */
export function eachShard(env: DbBindings): { shard: string; db: Db }[] {
  return shardBindings(env).map((shard) => ({ shard, db: clientOver(bindingOf(env, shard)) }));
}
