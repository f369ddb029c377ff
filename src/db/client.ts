import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
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
 * The one place a repo gets a user's database: the user's shard, from the directory's map or, for
 * a user not yet recorded, by rendezvous hashing (issue 20, docs/scale.md).
 */
export function dbFor(env: DbBindings, userId: string): Db {
  return drizzle(routedD1(env, userId), { schema });
}

/** Records that cross users (the registry's overrides, the user → shard map, mail dead letters). */
export function directoryDb(env: DbBindings): Db {
  return drizzle(bindingOf(env, directoryBinding(env)), { schema });
}

/**
 * Every shard's database, for scheduled work that spans users (tombstone purge, re-sealing),
 * which runs shard by shard. Never for one user's records: those go through dbFor.
 */
export function eachShard(env: DbBindings): { shard: string; db: Db }[] {
  return shardBindings(env).map((shard) => ({ shard, db: drizzle(bindingOf(env, shard), { schema }) }));
}
