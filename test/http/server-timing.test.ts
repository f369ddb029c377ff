import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { TestUser } from "../support/auth";
import { entryBody } from "../support/fixtures";

/** The worker as deployed, with Server-Timing configured one way or the other. */
async function send(
  user: TestUser,
  serverTiming: string | undefined,
  method: string,
  path: string,
  body?: unknown,
) {
  const vars = serverTiming === undefined ? { ...env } : { ...env, SERVER_TIMING: serverTiming };
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

const phases = (res: Response) =>
  (res.headers.get("server-timing") ?? "")
    .split(",")
    .map((p) => p.trim().split(";")[0])
    .filter(Boolean);

/** How many database calls the db phase counted (one call carries no desc). */
const dbCalls = (res: Response) => {
  const db = (res.headers.get("server-timing") ?? "")
    .split(",")
    .map((p) => p.trim())
    .find((p) => p.startsWith("db;"));
  if (!db) return 0;
  const calls = /desc="(\d+) calls"/.exec(db);
  return calls ? Number(calls[1]) : 1;
};

describe("Server-Timing", () => {
  it("is absent unless configured, and absent when configured off", async () => {
    const user = await TestUser.create();
    for (const setting of [undefined, "false"]) {
      const res = await send(user, setting, "GET", "/api/passwords/match?url=https://example.com");
      expect(res.status).toBe(200);
      expect(res.headers.get("server-timing")).toBeNull();
    }
  });

  it("names each phase of a request when on, in the W3C syntax, on errors too", async () => {
    const user = await TestUser.create();
    const created = await send(
      user,
      "true",
      "POST",
      "/api/passwords",
      entryBody({ website: "timed.example.com" }),
    );
    expect(created.status).toBe(201);
    const header = created.headers.get("server-timing")!;
    expect(header).toMatch(
      /^[a-z]+;dur=\d+(\.\d+)?(;desc="\d+ calls")?(, [a-z]+;dur=\d+(\.\d+)?(;desc="\d+ calls")?)*$/,
    );
    expect(phases(created)).toEqual(
      expect.arrayContaining(["auth", "ratelimit", "validation", "db", "ser", "app", "total"]),
    );

    // The timed database served the write: it is there to match.
    const match = await send(
      user,
      "true",
      "GET",
      "/api/passwords/match?url=https://login.timed.example.com/",
    );
    expect(((await match.json()) as { matches: unknown[] }).matches).toHaveLength(1);
    expect(phases(match)).toEqual(
      expect.arrayContaining(["auth", "ratelimit", "validation", "db", "ser", "total"]),
    );

    const bad = await send(user, "true", "GET", "/api/passwords/match");
    expect(bad.status).toBe(400);
    expect(phases(bad)).toEqual(expect.arrayContaining(["auth", "validation", "total"]));
    // Refused input reaches none of the handler's queries: the one read left is the sign-in's
    // 2FA state (D20), which every request makes before its input is looked at.
    expect(dbCalls(bad)).toBe(1);
    expect(dbCalls(match)).toBeGreaterThan(1);
  });
});
