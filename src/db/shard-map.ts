import { AppError, ErrorCode } from "../lib/errors";
import { bindingOf, directoryBinding, pickShard, shardBindings } from "./shards";

/**
 * The user → shard map (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): the directory's `user_shards` row when there is one, else the
 * rendezvous choice over the configured shards, recorded on the user's first write so that adding a
 * shard later never strands a user's rows on a database the hash no longer picks.
 */

/**
 * How long an isolate trusts what it read of the map. A move (src/db/shard-move.ts) waits longer
 * than this after marking a user before it copies, so no isolate can still be writing to the old
 * shard from a stale entry when the copy starts. `SHARD_CACHE_MS` overrides it (the suites).
 */
export const SHARD_CACHE_MS = 10_000;
export const shardCacheMs = (env: Record<string, unknown>) => {
  const v = Number(env.SHARD_CACHE_MS);
  return Number.isFinite(v) && v > 0 ? v : SHARD_CACHE_MS;
};
const CACHE_MAX = 50_000;
/** How often a write held by a move looks again, and for how long at most before it is refused. */
const MOVE_POLL_MS = 100;
const MOVE_WAIT_MS = 60_000;

type Mapped = { shard: string; movingTo: string | null } | null;
type Cached = { row: Mapped; until: number };
const cache = new Map<string, Cached>();

function remember(env: Record<string, unknown>, userId: string, row: Mapped) {
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(userId, { row, until: Date.now() + shardCacheMs(env) });
}

/** Drops what this isolate remembers of a user's shard (the move, and tests). */
export function forgetShard(userId?: string) {
  if (userId === undefined) cache.clear();
  else cache.delete(userId);
}

const SELECT = "SELECT shard, moving_to AS movingTo FROM user_shards WHERE user_id = ?";
const RECORD =
  "INSERT INTO user_shards (user_id, shard, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING";

async function readMap(
  env: Record<string, unknown>,
  userId: string,
  record: boolean,
): Promise<Mapped> {
  const directory = bindingOf(env, directoryBinding(env));
  if (!record)
    return (await directory.prepare(SELECT).bind(userId).first<NonNullable<Mapped>>()) ?? null;
  // Two first writes racing in different isolates both insert the hash's choice; the one that
  // lands wins and the select returns it to both.
  const [, read] = await directory.batch<NonNullable<Mapped>>([
    directory
      .prepare(RECORD)
      .bind(userId, pickShard(userId, shardBindings(env)), new Date().toISOString()),
    directory.prepare(SELECT).bind(userId),
  ]);
  return read!.results[0] ?? null;
}

/**
 * The shard binding that holds (or will hold) a user's rows. `forWrite` records a missing map row
 * first, and waits while the user is being moved (a write then would land on a copy being made);
 * a read of an unmapped user goes where the hash points, which is where their first write will go.
 */
export async function resolveShard(
  env: Record<string, unknown>,
  userId: string,
  forWrite: boolean,
): Promise<string> {
  const shards = shardBindings(env);
  const hit = cache.get(userId);
  let row: Mapped | undefined = hit && hit.until > Date.now() ? hit.row : undefined;
  if (row === undefined || (forWrite && (row === null || row.movingTo))) {
    row = await readMap(env, userId, forWrite);
    const deadline = Date.now() + MOVE_WAIT_MS;
    while (forWrite && row?.movingTo) {
      if (Date.now() > deadline)
        throw new AppError(
          ErrorCode.SERVICE_UNAVAILABLE,
          "Your data is being moved; try again shortly",
          { headers: { "Retry-After": "5" } },
        );
      await new Promise((r) => setTimeout(r, MOVE_POLL_MS));
      row = await readMap(env, userId, false);
    }
    remember(env, userId, row);
  }
  const shard = row?.shard ?? pickShard(userId, shards);
  // A map naming a database this deployment does not bind is a configuration error: serving the
  // hash's choice instead would answer from the wrong (empty) database.
  if (!shards.includes(shard))
    throw new Error(`User is mapped to shard ${shard}, which is not bound`);
  return shard;
}

/** A statement writes unless it is a plain SELECT; a misread write-as-read would skip recording. */
export const isWrite = (sql: string) => !/^\s*select\b/i.test(sql);
