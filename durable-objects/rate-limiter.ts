import { DurableObject } from "cloudflare:workers";

export type LimitCheck = { rule: string; limit: number; windowMs: number };
export type LimitResult = { allowed: true } | { allowed: false; rule: string; retryAfterSeconds: number };

/**
 * Sliding-window log per (subject, rule). One object per subject (a user or an IP), so a subject's
 * checks are serialised without locks; the log lives in the object's SQLite storage so an evicted
 * object does not forget a 15-minute window.
 */
export class RateLimiter extends DurableObject {
  private ready = false;

  private init() {
    if (this.ready) return;
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS hits (rule TEXT NOT NULL, ts INTEGER NOT NULL)");
    this.ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS hits_rule_ts ON hits (rule, ts)");
    this.ready = true;
  }

  /** Records one hit against every rule only when all of them allow it. */
  async hit(checks: LimitCheck[], now = Date.now()): Promise<LimitResult> {
    this.init();
    const sql = this.ctx.storage.sql;
    for (const check of checks) {
      const since = now - check.windowMs;
      const row = sql
        .exec<{ n: number; oldest: number | null }>("SELECT count(*) AS n, min(ts) AS oldest FROM hits WHERE rule = ? AND ts > ?", check.rule, since)
        .one();
      if (row.n >= check.limit) {
        const oldestInWindow = sql
          .exec<{ ts: number }>("SELECT ts FROM hits WHERE rule = ? AND ts > ? ORDER BY ts LIMIT 1 OFFSET ?", check.rule, since, row.n - check.limit)
          .one().ts;
        return { allowed: false, rule: check.rule, retryAfterSeconds: Math.max(1, Math.ceil((oldestInWindow + check.windowMs - now) / 1000)) };
      }
    }
    for (const check of checks) {
      sql.exec("INSERT INTO hits (rule, ts) VALUES (?, ?)", check.rule, now);
    }
    const longest = Math.max(...checks.map((c) => c.windowMs));
    if (Math.random() < 0.05) sql.exec("DELETE FROM hits WHERE ts <= ?", now - Math.max(longest, 60 * 60 * 1000));
    return { allowed: true };
  }

  async reset(): Promise<void> {
    this.init();
    this.ctx.storage.sql.exec("DELETE FROM hits");
  }
}
