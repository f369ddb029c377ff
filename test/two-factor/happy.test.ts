import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { codeFor, enroll, enrollAndConfirm, twoFactorRow } from "../support/two-factor";

describe("account 2FA: happy paths", () => {
  it("status is not enrolled before enrollment", async () => {
    const user = await TestUser.create();
    const res = await user.call("GET", "/api/2fa/status");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      enrolled: false,
      method: null,
      enrolledAt: null,
      pending: false,
      recoveryCodesRemaining: 0,
    });
  });

  it("enrollment returns an otpauth URI with issuer and email, a base32 secret and ten recovery codes", async () => {
    const user = await TestUser.create({
      email: `alice-${crypto.randomUUID().slice(0, 6)}@example.test`,
    });
    const res = await user.call("POST", "/api/2fa/enroll");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as {
      qrCodeUri: string;
      secret: string;
      recoveryCodes: string[];
    };
    expect(Object.keys(body).sort()).toEqual(["qrCodeUri", "recoveryCodes", "secret"]);
    expect(body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(body.qrCodeUri);
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(decodeURIComponent(uri.pathname)).toBe(`/Credential Vault:${user.email}`);
    expect(uri.searchParams.get("secret")).toBe(body.secret);
    expect(uri.searchParams.get("issuer")).toBe("Credential Vault");
    expect(body.recoveryCodes).toHaveLength(10);
    expect(new Set(body.recoveryCodes).size).toBe(10);
    for (const c of body.recoveryCodes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
  });

  it("the first right code confirms the enrollment; status then reports it", async () => {
    const user = await TestUser.create();
    const e = await enroll(user);
    const pending = (await (await user.call("GET", "/api/2fa/status")).json()) as Record<
      string,
      unknown
    >;
    expect(pending).toMatchObject({
      enrolled: false,
      method: null,
      enrolledAt: null,
      pending: true,
    });
    const before = Date.now();
    const res = await user.call("POST", "/api/2fa/verify", {
      body: { code: await codeFor(e.secret) },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ verified: true });
    const status = (await (await user.call("GET", "/api/2fa/status")).json()) as {
      enrolled: boolean;
      method: string;
      enrolledAt: string;
    };
    expect(status).toMatchObject({
      enrolled: true,
      method: "totp",
      pending: false,
      recoveryCodesRemaining: 10,
    });
    expect(new Date(status.enrolledAt).toISOString()).toBe(status.enrolledAt);
    expect(Date.parse(status.enrolledAt)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("accepts the next period's code (clock drift) after the current one", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const res = await user.call("POST", "/api/2fa/verify", {
      body: { code: await codeFor(e.secret, 1) },
    });
    expect(res.status).toBe(200);
  });

  it("a recovery code verifies once, with or without its dash and in any case", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const code = e.recoveryCodes[3];
    const res = await user.call("POST", "/api/2fa/verify", {
      body: { code: code.replace("-", "").toUpperCase() },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ verified: true, recoveryCodesRemaining: 9 });
    const again = await user.call("POST", "/api/2fa/verify", { body: { code } });
    expect(again.status).toBe(401);
    const status = (await (await user.call("GET", "/api/2fa/status")).json()) as {
      recoveryCodesRemaining: number;
    };
    expect(status.recoveryCodesRemaining).toBe(9);
  });

  it("re-enrollment replaces the secret and the recovery codes", async () => {
    const user = await TestUser.create();
    const first = await enrollAndConfirm(user);
    // Replacing a confirmed enrollment takes a current code (docs/decisions/hardening.md, "Hardening: limits, abuse and failure").
    const res = await user.call("POST", "/api/2fa/enroll", {
      body: { code: await codeFor(first.secret, 1) },
    });
    expect(res.status).toBe(200);
    const second = (await res.json()) as Awaited<ReturnType<typeof enroll>>;
    expect(second.secret).not.toBe(first.secret);
    const status = (await (await user.call("GET", "/api/2fa/status")).json()) as Record<
      string,
      unknown
    >;
    expect(status).toMatchObject({ enrolled: false, pending: true });
    const oldCode = await codeFor(first.secret, 1);
    expect((await user.call("POST", "/api/2fa/verify", { body: { code: oldCode } })).status).toBe(
      401,
    );
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: await codeFor(second.secret) } }))
        .status,
    ).toBe(200);
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: first.recoveryCodes[0] } }))
        .status,
    ).toBe(401);
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: second.recoveryCodes[0] } }))
        .status,
    ).toBe(200);
  });

  it("disables with a valid TOTP code", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const res = await user.call("POST", "/api/2fa/disable", {
      body: { code: await codeFor(e.secret, 1) },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(await (await user.call("GET", "/api/2fa/status")).json()).toMatchObject({
      enrolled: false,
      pending: false,
    });
    expect(await twoFactorRow(user.id)).toBeNull();
    const left = await env.DB.prepare(
      "SELECT count(*) AS n FROM two_factor_recovery_codes WHERE user_id = ?",
    )
      .bind(user.id)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("disables with a recovery code when the authenticator is lost", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const res = await user.call("POST", "/api/2fa/disable", { body: { code: e.recoveryCodes[9] } });
    expect(res.status).toBe(200);
    expect(await (await user.call("GET", "/api/2fa/status")).json()).toMatchObject({
      enrolled: false,
    });
  });

  it("records audit events for enrollment, confirmation and disabling", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    await user.call("POST", "/api/2fa/disable", { body: { code: e.recoveryCodes[0] } });
    const { results } = await env.DB.prepare(
      "SELECT action FROM audit_events WHERE user_id = ? ORDER BY created_at, rowid",
    )
      .bind(user.id)
      .all<{ action: string }>();
    expect(results.map((r) => r.action)).toEqual([
      "2fa.enroll",
      "2fa.enabled",
      "2fa.recovery_code_used",
      "2fa.disable",
    ]);
  });
});
