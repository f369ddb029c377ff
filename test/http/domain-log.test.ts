import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { sendQuietly, type Mailer } from "../../src/domains/notifications";
import { requestLog } from "../../src/http/request-log";
import type { AppEnv } from "../../src/http/types";
import worker from "../../src/index";

/** Every console line written while `fn` runs, each parsed as the JSON object it must be. */
async function logged<T>(
  fn: () => T | Promise<T>,
): Promise<{ result: T; lines: Record<string, unknown>[]; raw: string[] }> {
  const raw: string[] = [];
  const spies = (["log", "warn", "error"] as const).map((m) =>
    vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void raw.push(a.join(" "))),
  );
  try {
    const result = await fn();
    return { result, lines: raw.map((l) => JSON.parse(l) as Record<string, unknown>), raw };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

const SECRET = "invite-token-s3cret";

/** A mail transport that fails with the kind of message that may quote what it was sending. */
const failing = (delayMs: number): Mailer => ({
  async send(mail) {
    await new Promise((r) => setTimeout(r, delayMs));
    throw new Error(`could not deliver to ${mail.to}: ${mail.text}`);
  },
});

/** The request log in front of a route that calls a domain service which logs deep below the handler. */
function app() {
  const a = new Hono<AppEnv>();
  a.use("*", requestLog());
  a.post("/send/:delay", async (c) => {
    const sent = await sendQuietly(failing(Number(c.req.param("delay"))), {
      to: "owner@example.test",
      subject: "Invitation",
      text: `Accept: /invite/${SECRET}`,
      kind: "invitation",
    });
    return c.json({ sent });
  });
  return a;
}

describe("domain log lines: JSON, with the request id of the request that wrote them", () => {
  it("a domain service's line carries the id the answer carries, and not the error's message", async () => {
    const {
      result: res,
      lines,
      raw,
    } = await logged(() =>
      app().request("/send/0", { method: "POST" }, { ENVIRONMENT: "development" }),
    );
    expect(await res.json()).toEqual({ sent: false });
    const id = res.headers.get("X-Request-Id");
    expect(id).toBeTruthy();
    expect(lines).toEqual([
      {
        level: "error",
        msg: "mail send failed",
        requestId: id,
        kind: "invitation",
        reason: "Error",
      },
    ]);
    expect(raw.join("\n")).not.toMatch(/s3cret|owner@example/);
  });

  it("two requests in flight at once each log under their own id", async () => {
    const { result, lines } = await logged(() =>
      Promise.all([
        app().request("/send/30", { method: "POST" }, {}),
        app().request("/send/5", { method: "POST" }, {}),
      ]),
    );
    const ids = result.map((r) => r.headers.get("X-Request-Id"));
    expect(new Set(ids).size).toBe(2);
    // The later request finishes first: its line comes first and still names its own request.
    expect(lines.map((l) => l.requestId)).toEqual([ids[1], ids[0]]);
  });

  it("a cron's lines carry the cron instead of a request id", async () => {
    const ctx = createExecutionContext();
    const { lines } = await logged(async () => {
      await worker.scheduled!(
        createScheduledController({ scheduledTime: Date.now(), cron: "17 3 * * *" }),
        env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
    });
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) {
      expect(line).toMatchObject({
        level: expect.any(String),
        msg: expect.any(String),
        cron: "17 3 * * *",
      });
      expect(line).not.toHaveProperty("requestId");
    }
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: "expired sync tombstones purged",
        purged: expect.any(Number),
      }),
    );
  });
});
