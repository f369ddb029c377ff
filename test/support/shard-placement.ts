import { env } from "cloudflare:test";
import { bindingOf, directoryBinding, pickShard, shardBindings } from "../../src/db/shards";
import { TestUser } from "./auth";

/**
 * Placing users on chosen shards and finding which databases hold a row (docs/decisions/scale.md, "Scale: shards, a directory, many databases"). With one
 * shard every user is on it and the directory is the same database.
 */
const e = env as unknown as Record<string, unknown>;
export const shards = shardBindings(e);
export const directory = directoryBinding(e);
export const databases = () => [...new Set([directory, ...shards])];
export const first = shards[0]!;
export const last = shards[shards.length - 1]!;

/** A user whose id the router puts on `shard`. */
export async function userOn(shard: string, opts: { admin?: boolean; email?: string } = {}) {
  for (;;) {
    const id = crypto.randomUUID();
    if (pickShard(id, shards) === shard)
      return TestUser.create({ sub: id, admin: opts.admin, email: opts.email });
  }
}

/** The databases (by binding name) that hold a row matching `where`. */
export async function holders(table: string, where: string, ...params: unknown[]) {
  const out: string[] = [];
  for (const name of databases()) {
    const row = await bindingOf(e, name)
      .prepare(`SELECT 1 AS x FROM ${table} WHERE ${where}`)
      .bind(...params)
      .first();
    if (row) out.push(name);
  }
  return out;
}

/** Where a row of `shard`'s user must be: that shard alone, or, with one shard, the one database under both names. */
export const onlyOn = (shard: string) => (shards.length === 1 ? databases() : [shard]);

/** Where a directory row must be: the directory alone. */
export const inDirectory = () => (shards.length === 1 ? databases() : [directory]);

/** One column of a row on one database. */
export async function valueOn<T>(database: string, sql: string, ...params: unknown[]) {
  return bindingOf(e, database)
    .prepare(sql)
    .bind(...params)
    .first<T>();
}
