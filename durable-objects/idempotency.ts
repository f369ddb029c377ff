import { DurableObject } from "cloudflare:workers";

export type StoredResponse = { status: number; headers: [string, string][]; body: string };
export type BeginResult =
  | { state: "new" }
  | { state: "replay"; response: StoredResponse }
  | { state: "mismatch" }
  | { state: "in_flight" };

export const IDEMPOTENCY_TTL_MS = 60 * 60 * 1000;
/** A request that has neither completed nor released its key within this time is presumed dead. */
const LEASE_MS = 2 * 60 * 1000;

/**
 * Idempotency keys of one user (IETF draft-ietf-httpapi-idempotency-key-header): the first request
 * with a key runs; a replay gets its stored response; the same key with another payload is refused;
 * a replay while the first still runs is told so.
 */
export class IdempotencyStore extends DurableObject {
  private ready = false;

  private init() {
    if (this.ready) return;
    this.ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS keys (
        key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
        response TEXT, created_at INTEGER NOT NULL)`,
    );
    this.ready = true;
  }

  async begin(key: string, fingerprint: string, now = Date.now()): Promise<BeginResult> {
    this.init();
    const sql = this.ctx.storage.sql;
    sql.exec("DELETE FROM keys WHERE created_at <= ?", now - IDEMPOTENCY_TTL_MS);
    const rows = sql
      .exec<{ fingerprint: string; state: string; response: string | null; created_at: number }>(
        "SELECT fingerprint, state, response, created_at FROM keys WHERE key = ?",
        key,
      )
      .toArray();
    const row = rows[0];
    if (!row || (row.state === "in_flight" && row.created_at <= now - LEASE_MS)) {
      sql.exec(
        "INSERT OR REPLACE INTO keys (key, fingerprint, state, response, created_at) VALUES (?, ?, 'in_flight', NULL, ?)",
        key,
        fingerprint,
        now,
      );
      await this.scheduleSweep(Date.now());
      return { state: "new" };
    }
    if (row.fingerprint !== fingerprint) return { state: "mismatch" };
    if (row.state === "in_flight") return { state: "in_flight" };
    return { state: "replay", response: JSON.parse(row.response!) as StoredResponse };
  }

  async complete(key: string, response: StoredResponse): Promise<void> {
    this.init();
    this.ctx.storage.sql.exec(
      "UPDATE keys SET state = 'done', response = ? WHERE key = ?",
      JSON.stringify(response),
      key,
    );
  }

  async release(key: string): Promise<void> {
    this.init();
    this.ctx.storage.sql.exec("DELETE FROM keys WHERE key = ? AND state = 'in_flight'", key);
  }

  private async scheduleSweep(now: number) {
    if ((await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(now + IDEMPOTENCY_TTL_MS);
  }

  async alarm(): Promise<void> {
    this.init();
    const now = Date.now();
    this.ctx.storage.sql.exec("DELETE FROM keys WHERE created_at <= ?", now - IDEMPOTENCY_TTL_MS);
    const left = this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM keys").one().n;
    if (left > 0) await this.ctx.storage.setAlarm(now + IDEMPOTENCY_TTL_MS);
  }
}
