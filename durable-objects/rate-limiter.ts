import { DurableObject } from "cloudflare:workers";

export type LimitCheck = { rule: string; limit: number; windowMs: number };
export type LimitResult =
  | { allowed: true }
  | { allowed: false; rule: string; retryAfterSeconds: number };

/** What the periodic clean-up of the stored log keeps at least: the longest window of the spec's limits. */
const KEEP_MS = 60 * 60 * 1000;

/**
 * One rule's log in memory: its hits' times in ascending order from `head` on, every hit later
 * than `since` among them; `windowMs` is the widest window asked of it, which sets how far back
 * the log is kept as time passes.
 */
type Log = { ts: number[]; head: number; since: number; windowMs: number };

/** The first index at or after `from` whose time is later than `t` (binary search). */
function firstAfter(ts: number[], from: number, t: number): number {
  let lo = from;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Sliding-window log per (subject, rule). One object per subject (a user or an IP), so a subject's
 * checks are serialised without locks. The log lives in the object's SQLite storage, so an evicted
 * object does not forget a 15-minute window, and in memory, where a check counts the window's hits
 * by a binary search: counting them in SQLite read every hit of the window on every check, a cost
 * that grew with the traffic the limit allows (about 1 ms at a few thousand hits; docs/decisions/sync.md, "Sync: hot paths (delta pull, match, create, Server-Timing)").
 */
export class RateLimiter extends DurableObject {
  private ready = false;
  private readonly logs = new Map<string, Log>();

  private init() {
    if (this.ready) return;
    this.ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS hits (rule TEXT NOT NULL, ts INTEGER NOT NULL)",
    );
    this.ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS hits_rule_ts ON hits (rule, ts)");
    this.ready = true;
  }

  /** The rule's log covering every hit after `since`, read from storage the first time (or when a wider window is asked). */
  private logOf(rule: string, since: number, windowMs: number): Log {
    let log = this.logs.get(rule);
    if (!log || since < log.since) {
      const ts = this.ctx.storage.sql
        .exec<{ ts: number }>(
          "SELECT ts FROM hits WHERE rule = ? AND ts > ? ORDER BY ts",
          rule,
          since,
        )
        .toArray()
        .map((r) => r.ts);
      log = { ts, head: 0, since, windowMs: Math.max(windowMs, log?.windowMs ?? 0) };
      this.logs.set(rule, log);
    }
    return log;
  }

  /**
   * Forgets, in memory, the hits that have left the widest window. The array is cut only once
   * the forgotten part is most of it, so each hit costs O(1) to forget, amortised.
   */
  private static slide(log: Log, now: number) {
    const since = now - log.windowMs;
    if (since <= log.since) return;
    log.head = firstAfter(log.ts, log.head, since);
    log.since = since;
    if (log.head > 1024 && log.head * 2 > log.ts.length) {
      log.ts = log.ts.slice(log.head);
      log.head = 0;
    }
  }

  /** Records one hit against every rule only when all of them allow it. */
  async hit(checks: LimitCheck[], now = Date.now()): Promise<LimitResult> {
    this.init();
    for (const check of checks) {
      const since = now - check.windowMs;
      const log = this.logOf(check.rule, since, check.windowMs);
      const first = firstAfter(log.ts, log.head, since);
      const inWindow = log.ts.length - first;
      if (inWindow >= check.limit) {
        const oldestCounted = log.ts[first + inWindow - check.limit]!;
        return {
          allowed: false,
          rule: check.rule,
          retryAfterSeconds: Math.max(1, Math.ceil((oldestCounted + check.windowMs - now) / 1000)),
        };
      }
    }
    const sql = this.ctx.storage.sql;
    for (const check of checks) {
      sql.exec("INSERT INTO hits (rule, ts) VALUES (?, ?)", check.rule, now);
      const log = this.logs.get(check.rule)!;
      // A caller's clock may step back: the hit goes where its time sorts, so the log stays ordered.
      const at = firstAfter(log.ts, log.head, now);
      if (at === log.ts.length) log.ts.push(now);
      else log.ts.splice(at, 0, now);
      log.windowMs = Math.max(log.windowMs, check.windowMs);
      RateLimiter.slide(log, now);
    }
    const longest = Math.max(...checks.map((c) => c.windowMs));
    if (Math.random() < 0.05)
      sql.exec("DELETE FROM hits WHERE ts <= ?", now - Math.max(longest, KEEP_MS));
    return { allowed: true };
  }

  async reset(): Promise<void> {
    this.init();
    this.ctx.storage.sql.exec("DELETE FROM hits");
    this.logs.clear();
  }
}
