import { env } from "cloudflare:test";
import { Hono, type MiddlewareHandler } from "hono";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/env";
import { authenticate } from "../../src/http/auth";
import { handleError } from "../../src/http/errors";
import { stepUp, type StepUpOptions } from "../../src/http/step-up";
import type { AppEnv } from "../../src/http/types";
import { signToken } from "../support/auth";

const withConfig: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("config", loadConfig(c.env));
  await next();
};

function tinyApp(opts: StepUpOptions) {
  const app = new Hono<AppEnv>();
  app.use("*", withConfig);
  app.get("/op", authenticate(), stepUp(opts), (c) => c.text("ok"));
  app.onError(handleError);
  return app;
}

async function registerDevice(
  userId: string,
  fingerprint: string,
  trust: "trusted" | "recognized" | "unknown",
) {
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO devices (id, user_id, device_fingerprint, device_name, device_type, trust_level, is_current, last_active_at, created_at) VALUES (?, ?, ?, 'd', 'desktop', ?, 1, ?, ?)",
  )
    .bind(crypto.randomUUID(), userId, fingerprint, trust, now, now)
    .run();
}

async function request(
  app: Hono<AppEnv>,
  authAge: number | null,
  sub = crypto.randomUUID(),
  fingerprint?: string,
) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${await signToken({ sub, authAge })}`,
  };
  if (fingerprint) headers["x-device-fingerprint"] = fingerprint;
  return app.request("/op", { headers }, env);
}

describe("step-up middleware (RFC 9470)", () => {
  it("lets a recent sign-in through and refuses a stale one with the D3 body and header", async () => {
    const app = tinyApp({ maxAge: 90 });
    expect((await request(app, 30)).status).toBe(200);
    const res = await request(app, 120);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "STEP_UP_REQUIRED", status: 401, maxAge: 90 });
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer error="insufficient_user_authentication", max_age=90',
    );
  });

  it("treats a token without auth_time as stale", async () => {
    const res = await request(tinyApp({ maxAge: 300 }), null);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("STEP_UP_REQUIRED");
  });

  it("sensitive operations need 300 s on recognized and unknown devices, not on trusted ones", async () => {
    const app = tinyApp({ sensitive: true });
    const user = crypto.randomUUID();
    await registerDevice(user, "trusted-fp", "trusted");
    await registerDevice(user, "recognized-fp", "recognized");
    expect((await request(app, 3600, user, "trusted-fp")).status).toBe(200);
    const recognized = await request(app, 3600, user, "recognized-fp");
    expect(recognized.status).toBe(401);
    expect(((await recognized.json()) as { maxAge: number }).maxAge).toBe(300);
    expect((await request(app, 200, user, "recognized-fp")).status).toBe(200);
    expect((await request(app, 3600, user)).status).toBe(401);
    expect((await request(app, 3600, user, "someone-elses-fp")).status).toBe(401);
  });

  it("a device registered by another user does not count as trusted", async () => {
    const owner = crypto.randomUUID();
    await registerDevice(owner, "owner-fp", "trusted");
    expect(
      (await request(tinyApp({ sensitive: true }), 3600, crypto.randomUUID(), "owner-fp")).status,
    ).toBe(401);
  });

  it("the operation's own tighter limit still holds on a trusted device", async () => {
    const user = crypto.randomUUID();
    await registerDevice(user, "fp", "trusted");
    expect((await request(tinyApp({ maxAge: 90, sensitive: true }), 120, user, "fp")).status).toBe(
      401,
    );
  });

  it("denyUnknownDevice refuses an unregistered device with 403", async () => {
    const app = tinyApp({ denyUnknownDevice: true, sensitive: true });
    const res = await request(app, 10);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("FORBIDDEN");
    const user = crypto.randomUUID();
    await registerDevice(user, "known", "recognized");
    expect((await request(app, 10, user, "known")).status).toBe(200);
  });
});
