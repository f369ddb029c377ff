import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { handleError } from "../../src/http/errors";
import { phase } from "../../src/http/server-timing";
import { Timing } from "../../src/http/timing";
import type { AppEnv } from "../../src/http/types";
import { AppError, ErrorCode } from "../../src/lib/errors";

/** A middleware that throws before its first await, as authenticate() does without a token. */
const refuse = async function refuse() {
  throw new AppError(ErrorCode.UNAUTHORIZED, "Authentication required");
};

function tinyApp(withTiming: boolean) {
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  if (withTiming)
    app.use("*", async (c, next) => {
      c.set("timing", new Timing());
      await next();
    });
  app.get("/x", phase("auth", refuse), (c) => c.text("never"));
  return app;
}

/** Rejections nobody handled while `work` ran (workerd raises the standard event on globalThis). */
async function unhandledDuring(work: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onUnhandled = (e: PromiseRejectionEvent) => {
    seen.push(e.reason);
    e.preventDefault();
  };
  addEventListener("unhandledrejection", onUnhandled);
  try {
    await work();
    // Give the runtime a turn to report what it found.
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    removeEventListener("unhandledrejection", onUnhandled);
  }
  return seen;
}

describe("phase()", () => {
  for (const withTiming of [false, true]) {
    it(`passes a middleware's early throw to the error handler and leaves no rejection behind (Server-Timing ${withTiming ? "on" : "off"})`, async () => {
      const app = tinyApp(withTiming);
      const statuses: number[] = [];
      const leaked = await unhandledDuring(async () => {
        for (let i = 0; i < 20; i++) statuses.push((await app.request("/x")).status);
      });
      expect(statuses).toEqual(Array(20).fill(401));
      expect(leaked).toEqual([]);
    });
  }
});
