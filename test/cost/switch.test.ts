import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { TestUser } from "../support/auth";
import { entryBody } from "../support/fixtures";

async function send(user: TestUser, costCounters: string | undefined, method: string, path: string, body?: unknown) {
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

describe("cost counters", () => {
  it("probe", async () => {
    const user = await TestUser.create();
    const c = await send(user, "true", "POST", "/api/passwords", entryBody());
    console.log(c.status, c.headers.get("x-request-cost"));
    const m = await send(user, "true", "GET", "/api/passwords/match?url=https://example.com");
    console.log(m.status, m.headers.get("x-request-cost"));
    const off = await send(user, undefined, "GET", "/api/passwords/match?url=https://example.com");
    console.log(off.status, off.headers.get("x-request-cost"));
  });
});
