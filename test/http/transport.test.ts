import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app";
import { HSTS_VALUE, strictTransport } from "../../src/http/hsts";
import type { AppEnv } from "../../src/http/types";
import { signToken } from "../support/auth";
import { SELF } from "../support/worker";
import { productionVars } from "../support/production-env";

// A complete production configuration (as in production-config.test.ts).
const production = productionVars;

describe("cookies: __Host- over https", () => {
  it("over https only the __Host- session cookie is read; the bare name is ignored", async () => {
    const token = await signToken();
    const bare = await SELF.fetch("https://vault.test/api/auth/session", {
      headers: { cookie: `access_token=${token}` },
    });
    // Ignored, so no credential was presented: nobody is signed in.
    expect(bare.status).toBe(200);
    expect(await bare.json()).toEqual({ user: null, twoFactorRequired: false });
    const prefixed = await SELF.fetch("https://vault.test/api/auth/session", {
      headers: { cookie: `__Host-access_token=${token}` },
    });
    expect(prefixed.status).toBe(200);
  });

  it("over plain http (local development) the bare name is used, since a browser refuses __Host- there", async () => {
    const token = await signToken();
    expect(
      (
        await SELF.fetch("http://vault.test/api/auth/session", {
          headers: { cookie: `access_token=${token}` },
        })
      ).status,
    ).toBe(200);
    expect(
      await (
        await SELF.fetch("http://vault.test/api/auth/session", {
          headers: { cookie: `__Host-access_token=${token}` },
        })
      ).json(),
    ).toEqual({ user: null, twoFactorRequired: false });
  });

  it("sign-out clears the __Host- cookie with Secure and Path=/ and no Domain (a browser ignores anything else)", async () => {
    const res = await SELF.fetch("https://vault.test/api/auth/logout", { method: "POST" });
    expect(res.status).toBe(204);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-access_token=;/);
    expect(cookie).toMatch(/; Path=\/(;|$)/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).not.toMatch(/Domain=/i);
    const dev = await SELF.fetch("http://vault.test/api/auth/logout", { method: "POST" });
    expect(dev.headers.get("set-cookie") ?? "").toMatch(/^access_token=;/);
  });
});

describe("HSTS", () => {
  it("every production response carries Strict-Transport-Security, errors and a failed configuration included", async () => {
    const app = buildApp();
    for (const path of ["/api/health", "/api/does-not-exist", "/api/passwords"]) {
      const res = await app.request(`https://vault.test${path}`, {}, production);
      expect(res.headers.get("strict-transport-security"), path).toBe(HSTS_VALUE);
    }
    const broken = await app.request(
      "https://vault.test/api/health",
      {},
      { ...production, DATA_ENCRYPTION_KEY: undefined },
    );
    expect(broken.status).toBe(500);
    expect(broken.headers.get("strict-transport-security")).toBe(HSTS_VALUE);
  });

  it("development (plain http on localhost) sends none", async () => {
    expect(
      (await SELF.fetch("https://vault.test/api/health")).headers.get("strict-transport-security"),
    ).toBeNull();
  });

  it("the middleware alone, on a tiny app", async () => {
    const app = new Hono<AppEnv>();
    app.use("*", strictTransport());
    app.get("/", (c) => c.text("ok"));
    expect(
      (await app.request("/", {}, { ENVIRONMENT: "production" })).headers.get(
        "strict-transport-security",
      ),
    ).toBe(HSTS_VALUE);
    expect(
      (await app.request("/", {}, { ENVIRONMENT: "development" })).headers.get(
        "strict-transport-security",
      ),
    ).toBeNull();
  });
});
