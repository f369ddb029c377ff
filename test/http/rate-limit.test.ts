import { env } from "cloudflare:test";
import { Hono, type MiddlewareHandler } from "hono";
import { describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../src/env";
import { handleError } from "../../src/http/errors";
import { rateLimit, rateLimitAlongside } from "../../src/http/rate-limit";
import type { RateRuleName } from "../../src/http/rate-limit-rules";
import type { AppEnv } from "../../src/http/types";

const withConfig: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("config", loadConfig(c.env));
  await next();
};

/** An environment whose limiter cannot be reached, as during a Durable Object outage. */
const brokenEnv = {
  ...env,
  RATE_LIMITER: {
    idFromName: () => ({}),
    get: () => ({
      hit: () => Promise.reject(new Error("limiter unreachable")),
    }),
  },
};

function tinyApp(...rules: RateRuleName[]) {
  const app = new Hono<AppEnv>();
  app.use("*", withConfig);
  app.get("/op", rateLimit(...rules), (c) => c.text("ok"));
  app.onError(handleError);
  return app;
}

describe("rate limit middleware", () => {
  it("fail-closed rules answer 503 when the limiter is unreachable", async () => {
    const res = await tinyApp("password_reveal").request("/op", {}, brokenEnv);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503 });
    expect((await tinyApp("dead_man_switch_post").request("/op", {}, brokenEnv)).status).toBe(503);
  });

  it("other rules let the request through when the limiter is unreachable", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect((await tinyApp("passwords").request("/op", {}, brokenEnv)).status).toBe(200);
    expect((await tinyApp().request("/op", {}, brokenEnv)).status).toBe(200);
    warn.mockRestore();
  });

  it("counts unauthenticated callers per IP", async () => {
    const app = tinyApp("admin_registry_write");
    const ip = `198.51.100.${Math.floor(Math.random() * 250)}`;
    for (let i = 0; i < 10; i++)
      expect((await app.request("/op", { headers: { "cf-connecting-ip": ip } }, env)).status).toBe(
        200,
      );
    const res = await app.request("/op", { headers: { "cf-connecting-ip": ip } }, env);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(
      (await app.request("/op", { headers: { "cf-connecting-ip": "192.0.2.77" } }, env)).status,
    ).toBe(200);
  });
});

describe("RateLimiter Durable Object: sliding window", () => {
  const stub = () =>
    env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`test:${crypto.randomUUID()}`));
  const rule = [{ rule: "r", limit: 2, windowMs: 10_000 }];

  it("allows the limit within the window, refuses the next with an exact Retry-After, then slides", async () => {
    const s = stub();
    const t0 = 1_000_000;
    expect(await s.hit(rule, t0)).toEqual({ allowed: true });
    expect(await s.hit(rule, t0 + 4_000)).toEqual({ allowed: true });
    expect(await s.hit(rule, t0 + 5_000)).toEqual({
      allowed: false,
      rule: "r",
      retryAfterSeconds: 5,
    });
    expect(await s.hit(rule, t0 + 10_001)).toEqual({ allowed: true });
    expect(await s.hit(rule, t0 + 10_500)).toEqual({
      allowed: false,
      rule: "r",
      retryAfterSeconds: 4,
    });
  });

  it("records nothing when any rule refuses, so refused calls do not extend the window", async () => {
    const s = stub();
    const both = [
      { rule: "wide", limit: 100, windowMs: 60_000 },
      { rule: "narrow", limit: 1, windowMs: 60_000 },
    ];
    expect((await s.hit(both, 0)).allowed).toBe(true);
    for (let i = 1; i <= 5; i++) expect((await s.hit(both, i)).allowed).toBe(false);
    const wideOnly = [{ rule: "wide", limit: 2, windowMs: 60_000 }];
    expect((await s.hit(wideOnly, 10)).allowed).toBe(true);
    expect((await s.hit(wideOnly, 11)).allowed).toBe(false);
  });

  it("counts hits that slid out of a narrow window when the rule is later asked with a wider one", async () => {
    const s = stub();
    const narrow = [{ rule: "r", limit: 3, windowMs: 10_000 }];
    expect(await s.hit(narrow, 0)).toEqual({ allowed: true });
    expect(await s.hit(narrow, 1_000)).toEqual({ allowed: true });
    // Both earlier hits have left the 10 s window, so this one is the window's only hit...
    expect(await s.hit(narrow, 20_000)).toEqual({ allowed: true });
    // ...but a minute's window holds all three, and the oldest decides when the next is allowed.
    expect(await s.hit([{ rule: "r", limit: 3, windowMs: 60_000 }], 20_001)).toEqual({
      allowed: false,
      rule: "r",
      retryAfterSeconds: 40,
    });
  });

  it("keeps the log in order when the caller's clock steps back", async () => {
    const s = stub();
    const rule3 = [{ rule: "r", limit: 3, windowMs: 10_000 }];
    expect(await s.hit(rule3, 5_000)).toEqual({ allowed: true });
    expect(await s.hit(rule3, 3_000)).toEqual({ allowed: true });
    expect(await s.hit(rule3, 3_500)).toEqual({ allowed: true });
    expect(await s.hit(rule3, 4_000)).toEqual({ allowed: false, rule: "r", retryAfterSeconds: 9 });
    expect(await s.hit(rule3, 13_001)).toEqual({ allowed: true });
  });

  it("holds an exact limit over hundreds of hits in the window", async () => {
    const s = stub();
    const big = [{ rule: "big", limit: 500, windowMs: 60_000 }];
    for (let i = 0; i < 500; i++) expect((await s.hit(big, i)).allowed).toBe(true);
    expect(await s.hit(big, 500)).toEqual({ allowed: false, rule: "big", retryAfterSeconds: 60 });
    // At 60,000 the first hit (at 0) has left the window, and exactly one more is allowed.
    expect(await s.hit(big, 60_000)).toEqual({ allowed: true });
    expect((await s.hit(big, 60_000)).allowed).toBe(false);
  });

  it("stays exact after the memory has forgotten more than a thousand hits that left the window", async () => {
    const s = stub();
    // A hit every 10 ms against a 100 ms window: each finds nine before it, under the limit of ten.
    const short = [{ rule: "short", limit: 10, windowMs: 100 }];
    // The last of them (at 10,340) leaves 1,025 forgotten hits, the point where memory is compacted.
    for (let i = 0; i < 1_035; i++) expect((await s.hit(short, i * 10)).allowed).toBe(true);
    // The ten hits from 10,250 to 10,340 are still in the window: the next at 10,340 is refused.
    expect(await s.hit(short, 10_340)).toEqual({
      allowed: false,
      rule: "short",
      retryAfterSeconds: 1,
    });
    expect(await s.hit(short, 10_350)).toEqual({ allowed: true });
  });
});

describe("rate limit subject", () => {
  it("ignores a client-written X-Forwarded-For", async () => {
    const app = tinyApp("admin_registry_write");
    const ip = `203.0.113.${Math.floor(Math.random() * 250)}`;
    for (let i = 0; i < 10; i++) {
      const res = await app.request(
        "/op",
        { headers: { "cf-connecting-ip": ip, "x-forwarded-for": `10.0.0.${i}` } },
        env,
      );
      expect(res.status).toBe(200);
    }
    expect(
      (
        await app.request(
          "/op",
          { headers: { "cf-connecting-ip": ip, "x-forwarded-for": "10.9.9.9" } },
          env,
        )
      ).status,
    ).toBe(429);
  });
});

describe("rate limit checked alongside a read", () => {
  const refusingEnv = {
    ...env,
    RATE_LIMITER: {
      idFromName: () => ({}),
      get: () => ({ hit: async () => ({ allowed: false, rule: "general", retryAfterSeconds: 7 }) }),
    },
  };
  function alongsideApp(handler: () => Response, ...rules: RateRuleName[]) {
    const app = new Hono<AppEnv>();
    const ran = { count: 0 };
    app.use("*", withConfig);
    app.get("/read", rateLimitAlongside(...rules), () => {
      ran.count++;
      return handler();
    });
    app.onError(handleError);
    return { app, ran };
  }

  it("a refusal still answers 429 with Retry-After, and none of the read's answer", async () => {
    const { app, ran } = alongsideApp(() => new Response("secret result"));
    const res = await app.request("/read", {}, refusingEnv);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(await res.text()).not.toContain("secret result");
    expect(ran.count).toBe(1);
  });

  it("a refusal wins over the read's own error, as it would have come first", async () => {
    const { app } = alongsideApp(() => {
      throw new Error("read failed");
    });
    expect((await app.request("/read", {}, refusingEnv)).status).toBe(429);
  });

  it("an unreachable limiter lets the read through; fail-closed rules keep the check in front", async () => {
    const open = alongsideApp(() => new Response("ok"), "sync_pull");
    expect((await open.app.request("/read", {}, brokenEnv)).status).toBe(200);
    const closed = alongsideApp(() => new Response("ok"), "password_reveal");
    expect((await closed.app.request("/read", {}, brokenEnv)).status).toBe(503);
    expect(closed.ran.count).toBe(0);
  });
});
