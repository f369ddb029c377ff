import { eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { compile } from "./compiled";
import { batchable } from "./d1";
import { syncClocks } from "./schema";

/**
 * The per-user commit clock behind delta sync. A write batch starts with `advanceClock` and stamps
 * its rows with `clockValue` (and, committed, announces the clock: clock-announce.ts), so every row of one transaction carries the same, strictly greater
 * value than any earlier transaction of that user. D1 runs a batch as one serialised transaction,
 * so a pull that reads the clock and the changes in one batch sees exactly the writes stamped at
 * or below the value it returns, and any later write is stamped above it.
 *
 * The value tracks wall time (it never falls behind the writer's clock) so that it reads as an
 * ISO 8601 timestamp, as the spec's `serverTimestamp` must.
 */
export function advanceClock(db: Db, userId: string, nowMs = Date.now()) {
  return batchable(db, advanceSql(userId, nowMs));
}

/**
 * The clock set to at least `nowMs`; `past` is what the stored clock counts as (itself, or itself
 * plus one for a write, which must land strictly above every earlier one).
 */
const upsertClock = (
  userId: string | Placeholder<"user">,
  nowMs: number | Placeholder<"now">,
  past: SQL,
) =>
  sql`INSERT INTO sync_clocks (user_id, clock) VALUES (${userId}, ${nowMs})
    ON CONFLICT (user_id) DO UPDATE SET clock = max(${past}, excluded.clock)`;

/**
 * Returns the user and the clock it set: the writer hands its batch's result for this statement
 * to `announceClocks` (clock-announce.ts) once the batch has committed, to tell the user's hub.
 */
const advanceSql = (userId: string | Placeholder<"user">, nowMs: number | Placeholder<"now">) =>
  sql`${upsertClock(userId, nowMs, sql`sync_clocks.clock + 1`)} RETURNING user_id AS advanced_user, clock AS advanced_clock`;

/** `advanceClock` compiled once (src/db/compiled.ts), for a hot path's batch of compiled statements. */
export const advanceClockCompiled = compile<"user" | "now">(
  advanceSql(sql.placeholder("user"), sql.placeholder("now")),
);

/**
 * Brings the clock up to the reader's wall time without passing any committed write, so a pull's
 * cursor stays current (and within the 30-day window) even when nothing has changed for weeks, and
 * returns it (`RETURNING`), so the pull reads the clock in the statement that set it.
 */
export const catchUpClock = compile<"user" | "now">(
  sql`${upsertClock(sql.placeholder("user"), sql.placeholder("now"), sql`sync_clocks.clock`)} RETURNING clock`,
);

/**
 * The clock as a scalar subquery, for stamping `change_seq` inside the batch that advanced it (or
 * bounding a read by it); a placeholder for the user in a compiled statement.
 */
export function clockValue(userId: string | Placeholder<"user">) {
  return sql<number>`(SELECT clock FROM sync_clocks WHERE user_id = ${userId})`;
}

export function readClock(db: Db, userId: string) {
  return db
    .select({ clock: syncClocks.clock })
    .from(syncClocks)
    .where(eq(syncClocks.userId, userId));
}

export const clockToIso = (clock: number) => new Date(clock).toISOString();
