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

/**
 * The bindings a notice needs: the hubs' namespace, absent in a worker without live sync. Every
 * property optional, so TypeScript refuses an object that shares none of them (not the bindings).
 */
export type LiveSyncBindings = { LIVE_SYNC?: unknown };

/** A row `advanceClock` returns (change-clock.ts `advanceSql`'s RETURNING). */
type AdvancedClock = { advanced_user: string; advanced_clock: number };

/** The user and clock in the result of a batch's `advanceClock` statement (D1's `results` rows). */
export function advancedClocks(advanced: unknown): AdvancedClock[] {
  const rows = (advanced as { results?: unknown[] } | undefined)?.results ?? [];
  return (rows as Partial<AdvancedClock>[]).filter(
    (r): r is AdvancedClock =>
      typeof r.advanced_user === "string" && typeof r.advanced_clock === "number",
  );
}

/**
 * Tells the user's hub the clock a committed batch advanced to. `advanced` is that batch's result
 * for its `advanceClock` statement. Every writer that advances a clock calls this itself, on the
 * line after its batch's await: a batch that failed threw before it (rolled back, tells no one),
 * and a writer whose batch changed no row does not call it (nothing for a device to pull).
 * test/tooling/clock-notices.test.ts fails for a module that advances a clock and never calls it.
 * The call outlives the response (waitUntil) and never fails the write: a device that misses a
 * notice still pulls at its next safety-net run.
 */
export function announceClocks(env: LiveSyncBindings, advanced: unknown): void {
  const hubs = env.LIVE_SYNC as HubNamespace | undefined;
  if (!hubs) return;
  const latest = new Map<string, number>();
  for (const r of advancedClocks(advanced))
    latest.set(r.advanced_user, Math.max(latest.get(r.advanced_user) ?? 0, r.advanced_clock));
  for (const [userId, clock] of latest)
    outlive(hubs.get(hubs.idFromName(userId)).notify(userId, clock));
}
