import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import worker from "../../src/index";
import { TestUser } from "../support/auth";
import { entryBody } from "../support/fixtures";
import { productionVars } from "../support/production-env";

/** The worker as deployed, with the cost counters set one way or the other (or not at all). */
async function send(
  user: TestUser,
  costCounters: string | undefined,
  method: string,
  path: string,
  body?: unknown,
) {
  const vars = costCounters === undefined ? { ...env } : { ...env, COST_COUNTERS: costCounters };
  const headers: Record<string, string> = { authorization: `Bearer ${user.token}` };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    headers["x-csrf-token"] = await user.csrf();
  }
  const req = new Request(`https://vault.test${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return worker.fetch(req, vars, createExecutionContext());
}

/** The header's exact shape: named counts and nothing else. */
const SHAPE =
  /^d1=\d+, rows_read=\d+, rows_written=\d+, do=\d+, r2_a=\d+, r2_b=\d+, queue=\d+, fetch=\d+$/;

const counts = (res: Response) =>
  Object.fromEntries(
    (res.headers.get("x-request-cost") ?? "").split(", ").map((p) => {
      const [k, v] = p.split("=");
      return [k, Number(v)];
    }),
  );

describe("cost counters", () => {
  it("are absent unless configured, and absent when configured off", async () => {
    const user = await TestUser.create();
    for (const setting of [undefined, "false"]) {
      const res = await send(user, setting, "GET", "/api/passwords/match?url=https://example.com");
      expect(res.status).toBe(200);
      expect(res.headers.get("x-request-cost")).toBeNull();
    }
  });

  it("answer counts only: statements, rows, Durable Object calls, R2, queue and fetches", async () => {
    const user = await TestUser.create();
    const created = await send(user, "true", "POST", "/api/passwords", entryBody());
    expect(created.status).toBe(201);
    const header = created.headers.get("x-request-cost") ?? "";
    expect(header).toMatch(SHAPE);
    const write = counts(created);
    expect(write.d1).toBeGreaterThan(0);
    expect(write.rows_written).toBeGreaterThan(0);

    const matched = await send(user, "true", "GET", "/api/passwords/match?url=https://example.com");
    expect(matched.headers.get("x-request-cost")).toMatch(SHAPE);
    const read = counts(matched);
    expect(read.d1).toBeGreaterThan(0);
    expect(read.rows_read).toBeGreaterThan(0);
    expect(read.rows_written).toBe(0);
  });

  it("count rows read by the statements the request made, not a fixed figure", async () => {
    const user = await TestUser.create();
    const path = "/api/passwords/match?url=https://many.example.com";
    await send(user, "true", "GET", path);
    const before = counts(await send(user, "true", "GET", path)).rows_read;
    for (let i = 0; i < 5; i++)
      await send(
        user,
        "true",
        "POST",
        "/api/passwords",
        entryBody({ website: "many.example.com" }),
      );
    const after = counts(await send(user, "true", "GET", path)).rows_read;
    expect(after).toBeGreaterThanOrEqual(before + 5);
  });

  it("are refused in production: the worker fails closed and the log names the switch", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await buildApp().request(
        "/api/health",
        {},
        { ...productionVars, COST_COUNTERS: "true" },
      );
      expect(res.status).toBe(500);
      expect(res.headers.get("x-request-cost")).toBeNull();
      expect(log.mock.calls.map((c) => c.join(" ")).join("\n")).toContain("COST_COUNTERS");
    } finally {
      log.mockRestore();
    }
  });
});
