import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { buildApp } from "../../src/app";
import { requestLog } from "../../src/http/request-log";
import type { AppEnv } from "../../src/http/types";

function tinyApp() {
  const app = new Hono<AppEnv>();
  app.use("*", requestLog());
  app.get("/emergency/:token", (c) => c.text(c.get("requestId")));
  app.get("/boom", () => {
    throw new Error("boom");
  });
  app.onError((_e, c) => c.text("failed", 500));
  return app;
}

/** Runs `fn` with console.log and console.error captured, each line parsed as the JSON it must be. */
async function logged<T>(
  fn: () => T | Promise<T>,
): Promise<{ result: T; lines: Record<string, unknown>[] }> {
  const out: string[] = [];
  const spies = [vi.spyOn(console, "log"), vi.spyOn(console, "error")].map((s) =>
    s.mockImplementation((...a: unknown[]) => void out.push(a.join(" "))),
  );
  try {
    const result = await fn();
    return {
      result,
      lines: out
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

describe("requestLog: a request id on every answer and one structured line per request", () => {
  it("answers a fresh UUID in X-Request-Id, the same id the handler sees", async () => {
    const res = await tinyApp().request("/emergency/abc", {}, { ENVIRONMENT: "development" });
    const id = res.headers.get("X-Request-Id");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await res.text()).toBe(id);
    const again = await tinyApp().request("/emergency/abc", {}, { ENVIRONMENT: "development" });
    expect(again.headers.get("X-Request-Id")).not.toBe(id);
  });

  it("takes Cloudflare's ray id when the request carries one, and never a client's own id or a malformed ray", async () => {
    const ray = "8f1c2b3a4d5e6f70-LHR";
    const withRay = await tinyApp().request(
      "/emergency/abc",
      { headers: { "cf-ray": ray, "X-Request-Id": "chosen-by-client" } },
      {},
    );
    expect(withRay.headers.get("X-Request-Id")).toBe(ray);
    const forged = await tinyApp().request(
      "/emergency/abc",
      { headers: { "cf-ray": '"}{"level":"x', "X-Request-Id": "chosen-by-client" } },
      {},
    );
    expect(forged.headers.get("X-Request-Id")).not.toMatch(/level|chosen/);
  });

  it("in production logs every request as JSON with the route's pattern, never the path's secret", async () => {
    const { result: res, lines } = await logged(() =>
      tinyApp().request("/emergency/s3cret-token-value", {}, { ENVIRONMENT: "production" }),
    );
    expect(lines).toEqual([
      {
        level: "info",
        msg: "request",
        requestId: res.headers.get("X-Request-Id"),
        method: "GET",
        route: "/emergency/:token",
        status: 200,
        ms: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain("s3cret");
  });

  it("in development logs only failures, and a failure carries its id", async () => {
    const quiet = await logged(() =>
      tinyApp().request("/emergency/abc", {}, { ENVIRONMENT: "development" }),
    );
    expect(quiet.lines).toEqual([]);
    const { result: res, lines } = await logged(() =>
      tinyApp().request("/boom", {}, { ENVIRONMENT: "development" }),
    );
    expect(res.status).toBe(500);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        msg: "request",
        requestId: res.headers.get("X-Request-Id"),
        status: 500,
        route: "/boom",
      }),
    );
  });

  it("the app answers the id on errors too, and its unhandled-error line carries it", async () => {
    const notFound = await buildApp().request("/api/no-such-route", {}, env);
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get("X-Request-Id")).toBeTruthy();
    const { result: misconfigured, lines } = await logged(() =>
      buildApp().request("/api/health", {}, { ...env, CSRF_SECRET: undefined }),
    );
    expect(misconfigured.status).toBe(500);
    const id = misconfigured.headers.get("X-Request-Id");
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: "request", requestId: id, status: 500 }),
    );
  });
});
