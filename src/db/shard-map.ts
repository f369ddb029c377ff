import { bindingOf, directoryBinding, pickShard, shardBindings } from "./shards";

/**
 * The user → shard map (issue 20): the directory's `user_shards` row when there is one, else the
 * rendezvous choice over the configured shards, recorded on the user's first write so that adding a
 * shard later never strands a user's rows on a database the hash no longer picks.
 */

/**
 * How long an isolate trusts what it read of the map. A move (scripts/shards.mjs) holds the user's
 * writes for longer than this before it copies, so no isolate can still be writing to the old shard
 * from a stale entry when the copy starts.
 */
export const SHARD_CACHE_MS = 10_000;
const CACHE_MAX = 50_000;

type Cached = { shard: string | null; until: number };
const cache = new Map<string, Cached>();

function remember(userId: string, shard: string | null) {
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(userId, { shard, until: Date.now() + SHARD_CACHE_MS });
}

/** Drops what this isolate remembers of a user's shard (the move command and tests). */
export function forgetShard(userId?: string) {
  if (userId === undefined) cache.clear();
  else cache.delete(userId);
}

const SELECT = "SELECT shard FROM user_shards WHERE user_id = ?";
const RECORD = "INSERT INTO user_shards (user_id, shard, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING";

/**
 * The shard binding that holds (or will hold) a user's rows. `forWrite` records a missing map row
 * first; a read of an unmapped user goes where the hash points, which is where their first write
 * will go, and reads nothing there either way.
 */
export async function resolveShard(env: Record<string, unknown>, userId: string, forWrite: boolean): Promise<string> {
  const shards = shardBindings(env);
  const hit = cache.get(userId);
  let mapped: string | null | undefined = hit && hit.until > Date.now() ? hit.shard : undefined;
  if (mapped === undefined || (mapped === null && forWrite)) {
    const directory = bindingOf(env, directoryBinding(env));
    if (forWrite) {
      // Two first writes racing in different isolates both insert the hash's choice; the one that
      // lands wins and the select returns it to both.
      const [, read] = await directory.batch<{ shard: string }>([
        directory.prepare(RECORD).bind(userId, pickShard(userId, shards), new Date().toISOString()),
        directory.prepare(SELECT).bind(userId),
      ]);
      mapped = read!.results[0]?.shard ?? null;
    } else {
      mapped = (await directory.prepare(SELECT).bind(userId).first<{ shard: string }>())?.shard ?? null;
    }
    remember(userId, mapped);
  }
  const shard = mapped ?? pickShard(userId, shards);
  // A map naming a database this deployment does not bind is a configuration error: serving the
  // hash's choice instead would answer from the wrong (empty) database.
  if (!shards.includes(shard)) throw new Error(`User is mapped to shard ${shard}, which is not bound`);
  return shard;
}

/** A statement writes unless it is a plain SELECT; a misread write-as-read would skip recording. */
export const isWrite = (sql: string) => !/^\s*select\b/i.test(sql);
