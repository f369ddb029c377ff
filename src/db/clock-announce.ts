import { waitUntil } from "cloudflare:workers";
import type { LiveSyncTopic } from "../kernel/live-sync";
import { errorName, logJson } from "../lib/log";

/**
 * What the database layer needs of the live-sync hubs (durable-objects/live-sync-hub.ts, bound as
 * LIVE_SYNC): told a user's new change clock. Structural, so this layer stays a leaf.
 */
type HubNamespace = {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): {
    notify(userId: string, clock: number): Promise<number>;
    topic(userId: string, topic: LiveSyncTopic): Promise<number>;
  };
};

/** Runs a hub call past the response (waitUntil); a failure is logged and never fails the write. */
function outlive(told: Promise<unknown>) {
  const quiet = told.then(
    () => undefined,
    (err) => logJson("warn", "live-sync notify failed", { error: errorName(err) }),
  );
  try {
    waitUntil(quiet);
  } catch {
    /* outside an invocation (a test's direct call): the promise runs on by itself */
  }
}

/**
 * Tells the hubs of the users whose view of `topic` changed (a share's owner and recipient, an
 * emergency record's owner and contact). Called by the service once its write has committed, so a
 * refused or failed change tells no one; the notice carries the topic only.
 */
export function announceTopic(
  env: object,
  userIds: (string | null | undefined)[],
  topic: LiveSyncTopic,
): void {
  const hubs = (env as Record<string, unknown>).LIVE_SYNC as HubNamespace | undefined;
  if (!hubs) return;
  for (const userId of new Set(
    userIds.filter((u): u is string => typeof u === "string" && u !== ""),
  )) {
    outlive(hubs.get(hubs.idFromName(userId)).topic(userId, topic));
  }
}

/** A row the clock-advancing statement returns (change-clock.ts `advanceSql`'s RETURNING). */
export type AdvancedClock = { advanced_user: string; advanced_clock: number };

/** True for the text of the statement that advances a change clock. */
export const advancesClock = (sql: string) => sql.includes("advanced_clock");

/**
 * Tells each user's hub the clock their committed batch advanced to. Called only after D1 has
 * answered the batch (it committed): a batch that failed rolled back and tells no one. The call
 * outlives the response (waitUntil) and never fails the write: a device that misses a notice
 * still pulls at its next safety-net run.
 */
export function announceClocks(env: Record<string, unknown>, rows: AdvancedClock[]): void {
  const hubs = env.LIVE_SYNC as HubNamespace | undefined;
  if (!hubs || rows.length === 0) return;
  const latest = new Map<string, number>();
  for (const r of rows)
    latest.set(r.advanced_user, Math.max(latest.get(r.advanced_user) ?? 0, r.advanced_clock));
  for (const [userId, clock] of latest)
    outlive(hubs.get(hubs.idFromName(userId)).notify(userId, clock));
}

/** The advanced-clock rows among a batch's results, by the statements that advanced it. */
export function advancedRows(
  sqls: (string | undefined)[],
  results: { results?: unknown[] }[],
): AdvancedClock[] {
  const rows: AdvancedClock[] = [];
  sqls.forEach((sql, i) => {
    if (sql === undefined || !advancesClock(sql)) return;
    for (const r of (results[i]?.results ?? []) as Partial<AdvancedClock>[]) {
      if (typeof r.advanced_user === "string" && typeof r.advanced_clock === "number")
        rows.push(r as AdvancedClock);
    }
  });
  return rows;
}
