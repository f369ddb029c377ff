import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/env";
import { discoverSignIn } from "../../src/domains/reset/sign-in-discovery";
import { directoryDb } from "../../src/db/client";
import { expectErrorBody, TestUser } from "../support/auth";

const site = env.TEST_RESET_SITE;

describe("POST /api/sign-in-discovery", () => {
  it("reports password, passkey and OAuth sign-in with absolute reset and signup URLs", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/sign-in-discovery", {
      body: { url: `${site}/login` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { methods: string[]; resetUrl: string; signupUrl: string };
    expect(body.methods).toEqual(["email_password", "passkey", "google"]);
    expect(body.resetUrl).toBe(`${site}/forgot-password`);
    expect(body.signupUrl).toBe(`${site}/signup`);
  });

  it("follows redirects and finds a reset link by its text", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/sign-in-discovery", {
      body: { url: `${site}/redirect?to=/plain-login` },
    });
    expect(await res.json()).toEqual({
      methods: ["email_password"],
      resetUrl: `${site}/help/reset-password`,
      signupUrl: null,
    });
  });

  it("a redirect to a refused scheme is 400 naming url; a page that is not HTML is 422", async () => {
    const user = await TestUser.create();
    const err = await expectErrorBody(
      await user.call("POST", "/api/sign-in-discovery", {
        body: { url: `${site}/redirect?to=${encodeURIComponent("ftp://example.test/")}` },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.details).toEqual([{ field: "url", message: "URL must be http or https" }]);
    await expectErrorBody(
      await user.call("POST", "/api/sign-in-discovery", { body: { url: `${site}/not-html` } }),
      422,
      "UNPROCESSABLE",
    );
    await expectErrorBody(
      await user.call("POST", "/api/sign-in-discovery", { body: { url: `${site}/missing` } }),
      422,
      "UNPROCESSABLE",
    );
  });

  it.each([
    ["file:///etc/passwd"],
    ["javascript:alert(1)"],
    ["not a url"],
    ["http://user:pw@example.test/"],
  ])("refuses %s with 400 on url", async (url) => {
    const user = await TestUser.create();
    const err = await expectErrorBody(
      await user.call("POST", "/api/sign-in-discovery", { body: { url } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.details?.[0].field).toBe("url");
  });

  it("validates the body and needs authentication and CSRF", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/sign-in-discovery", { body: {} }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("POST", "/api/sign-in-discovery", {
        body: { url: `${site}/login` },
        csrf: false,
      }),
      403,
      "FORBIDDEN",
    );
  });

  it("without OUTBOUND_ALLOW_PRIVATE, loopback and private addresses are refused before any fetch", async () => {
    const strict = { ...loadConfig(env), allowPrivateOutbound: false };
    for (const url of [
      `${site}/login`,
      "http://127.1/",
      "http://2130706433/",
      "http://[::ffff:10.0.0.1]/",
      "http://169.254.169.254/latest",
    ]) {
      await expect(discoverSignIn(strict, directoryDb(env), url)).rejects.toMatchObject({
        code: "VALIDATION_ERROR",
        details: [{ field: "url" }],
      });
    }
  });
});
