import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { routineRoutes, seedThroughApi } from "../../bench/lib/cost-routes.mjs";
import table from "../../docs/cost.json";
import worker from "../../src/index";
import { TestUser } from "../support/auth";

/**
 * Each routine request's D1 statements and rows read, on a vault of 1,000 entries, against the
 * figures `npm run bench:cost` measured and docs/cost.md shows (docs/cost.json): a query plan that
 * starts reading every row of the vault, or a request that gains statements, fails here. The
 * requests are the bench's own list (bench/lib/cost-routes.mjs), sent in the same order.
 */

type Cost = Record<string, number>;
type Row = { key: string; size: number; routine: boolean; d1: number; rows_read: number };

const SIZE = 1000;

/**
 * What the suite may exceed the bench's figures by: its environment is not wrangler dev's (the
 * user's row of the placement map is trusted for 300 ms here against 10 s there, so it is read again
 * more often; and the push's rows read run about one a mutation higher here). A plan that walks the
 * vault reads hundreds of rows more at 1,000 entries, far past this.
 */
const SLACK = { statements: 2, rowsFactor: 1.2, rows: 2 };
const allowed = (limit: Row) => ({
  d1: limit.d1 + SLACK.statements,
  rows: Math.ceil(limit.rows_read * SLACK.rowsFactor) + SLACK.rows,
});
const budget = new Map(
  (table.routes as Row[]).filter((r) => r.routine && r.size === SIZE).map((r) => [r.key, r]),
);

const parseCost = (h: string | null): Cost =>
  Object.fromEntries(
    (h ?? "")
      .split(",")
      .map((p) => p.trim().split("="))
      .filter((p) => p.length === 2)
      .map(([k, v]) => [k, Number(v)]),
  );

const b64 = (n: number) => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(n))));

/** The worker with the counters on and the entry limit the bench runs with (the suite's is 25). */
function caller(user: TestUser, csrf: string) {
  const vars = { ...env, COST_COUNTERS: "true", MAX_PASSWORDS_PER_USER: "1000000" };
  return async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${user.token}` };
    if (method !== "GET") {
      headers["content-type"] = "application/json";
      headers["x-csrf-token"] = csrf;
    }
    const res = await worker.fetch(
      new Request(`https://vault.test${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      vars,
      createExecutionContext(),
    );
    const text = await res.text();
    if (res.status >= 400)
      throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return {
      status: res.status,
      cost: parseCost(res.headers.get("x-request-cost")),
      json: /json/.test(res.headers.get("content-type") ?? "") ? JSON.parse(text) : null,
    };
  };
}

describe("what each routine request costs, against the committed table", () => {
  it("the table covers every routine request at 1,000 entries", () => {
    const missing = routineRoutes.map((r) => r.key).filter((k) => !budget.has(k));
    expect(missing).toEqual([]);
  });

  it("no routine request makes more D1 statements or reads more rows than the table says", async () => {
    const user = await TestUser.create();
    const call = caller(user, await user.csrf());
    const ctx = {
      size: SIZE,
      id: (k: number) => `${user.id}-${((k % SIZE) + SIZE) % SIZE}`,
      call,
      b64,
      stamp: () => new Date().toISOString(),
    };
    await seedThroughApi(ctx, user.id);
    const over: string[] = [];
    for (const r of routineRoutes) {
      const limit = budget.get(r.key);
      if (!limit) continue;
      await r.setup?.(ctx);
      // Two unmeasured requests first, as the bench sends them (caches filled by a first request).
      for (let i = -2; i < 0; i++) await r.send(ctx, i);
      for (let i = 0; i < 3; i++) {
        const { cost } = await r.send(ctx, i);
        expect(Number.isFinite(cost.rows_read), `${r.key}: rows read are metered`).toBe(true);
        const most = allowed(limit);
        if (cost.d1 > most.d1 || cost.rows_read > most.rows)
          over.push(
            `${r.key}: ${cost.d1} statements, ${cost.rows_read} rows read (table: ${limit.d1}, ${limit.rows_read}; at most ${most.d1}, ${most.rows})`,
          );
      }
    }
    expect(over).toEqual([]);
  }, 120_000);
});
