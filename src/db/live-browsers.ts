import { dbFor, eachShard, type Db, type DbBindings } from "./client";
import { AppError, ErrorCode } from "../lib/errors";

/** Statuses in which a reset holds, or is about to hold, a browser. */
const LIVE_RESET = "'pending','running','waiting_for_email','waiting_for_otp'";
/** Statuses in which a session share holds a browser; a scheduled one is checked when it starts. */
const LIVE_SHARE = "'login_in_progress','active','paused'";

export type LiveBrowsers = { user: number; global: number };

const rawOf = (db: Db) => (db as Db & { $client: D1Database }).$client;

async function countOf(db: Db, userId: string | null): Promise<number> {
  const mine = userId === null ? "" : "user_id = ?1 AND ";
  const row = await rawOf(db)
    .prepare(
      `SELECT (SELECT count(*) FROM reset_jobs WHERE ${mine}status IN (${LIVE_RESET}))
            + (SELECT count(*) FROM session_shares WHERE ${mine.replace("user_id", "owner_id")}status IN (${LIVE_SHARE})) AS n`,
    )
    .bind(...(userId === null ? [] : [userId]))
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/**
 * Live browsers of one user (on their shard) and of the whole deployment (every shard, docs/decisions/scale.md, "Scale: shards, a directory, many databases"):
 * resets and session shares together.
 */
export async function liveBrowserCounts(env: DbBindings, userId: string): Promise<LiveBrowsers> {
  const [user, ...perShard] = await Promise.all([
    countOf(dbFor(env, userId), userId),
    ...eachShard(env).map(({ db }) => countOf(db, null)),
  ]);
  return { user: user!, global: perShard.reduce((a, b) => a + b, 0) };
}

/** How long a refused caller is told to wait: a reset or a short share usually ends within it. */
const RETRY_AFTER_S = 60;

/**
 * Called right after inserting a new live browser (counted in `counts`): over either cap, the caller
 * undoes its insert and the request is refused. Inserting first makes parallel starts safe: each
 * sees the others' rows, so together they never pass the cap (at worst all of them are refused).
 */
export async function requireBrowserCapacity(
  env: DbBindings,
  userId: string,
  caps: { perUser: number; global: number },
  undo: () => Promise<unknown>,
): Promise<void> {
  const counts = await liveBrowserCounts(env, userId);
  if (counts.user <= caps.perUser && counts.global <= caps.global) return;
  await undo();
  const mine = counts.user > caps.perUser;
  throw new AppError(
    ErrorCode.RATE_LIMITED,
    mine
      ? `At most ${caps.perUser} automated browsers can run for you at once; wait for one to end`
      : "Too many automated browsers are running; try again shortly",
    {
      headers: { "Retry-After": String(RETRY_AFTER_S) },
    },
  );
}

/** For a scheduled start: is there room for one more browser for this user? */
export async function hasBrowserCapacity(
  env: DbBindings,
  userId: string,
  caps: { perUser: number; global: number },
): Promise<boolean> {
  const counts = await liveBrowserCounts(env, userId);
  return counts.user < caps.perUser && counts.global < caps.global;
}
