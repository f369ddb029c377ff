import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  ageSecondFactor,
  codeFor,
  enroll,
  enrollAndConfirm,
  enrolledSignIn,
  setWrongCodes,
  twoFactorRow,
} from "../support/two-factor";

const FIFTEEN_MINUTES = 15 * 60 * 1000;

async function registerDevice(user: TestUser, trust: "trusted" | "recognized"): Promise<string> {
  const fingerprint = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const res = await user.call("POST", "/api/devices", {
    body: { fingerprint, deviceName: "Laptop" },
  });
  const { device } = (await res.json()) as { device: { id: string } };
  if (trust !== "trusted")
    await user.call("PATCH", `/api/devices/${device.id}`, { body: { trustLevel: trust } });
  return fingerprint;
}

describe("account 2FA: security", () => {
  it("the secret is sealed at rest and recovery codes are stored only as hashes", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const row = await twoFactorRow(user.id);
    expect(row?.secret_sealed).not.toContain(e.secret);
    expect(JSON.parse(row!.secret_sealed)).toMatchObject({
      kid: expect.any(String),
      iv: expect.any(String),
      ct: expect.any(String),
    });
    const { results } = await env.DB.prepare(
      "SELECT code_hash FROM two_factor_recovery_codes WHERE user_id = ?",
    )
      .bind(user.id)
      .all<{ code_hash: string }>();
    expect(results).toHaveLength(10);
    const stored = JSON.stringify(results);
    for (const c of e.recoveryCodes) {
      expect(stored).not.toContain(c);
      expect(stored).not.toContain(c.replace("-", ""));
    }
    const status = await (await user.call("GET", "/api/2fa/status")).text();
    expect(status).not.toContain(e.secret);
  });

  it("after 10 wrong codes the endpoint answers 429, a right code included", async () => {
    const user = await TestUser.create();
    const e = await enroll(user);
    for (let i = 0; i < 10; i++) {
      expect(
        (await user.call("POST", "/api/2fa/verify", { body: { code: "000000" } })).status,
      ).toBe(401);
    }
    expect((await twoFactorRow(user.id))?.failed_count).toBe(10);
    const res = await user.call("POST", "/api/2fa/verify", {
      body: { code: await codeFor(e.secret) },
    });
    await expectErrorBody(res, 429, "RATE_LIMITED");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await twoFactorRow(user.id))?.enrolled_at).toBeNull();
  });

  it("the wrong-code lockout holds on its own, even when the request limiter lets a request through", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    await setWrongCodes(user.id, 10, Date.now() - 60_000);
    const before = await twoFactorRow(user.id);
    const res = await user.call("POST", "/api/2fa/verify", {
      body: { code: await codeFor(e.secret, 1) },
    });
    await expectErrorBody(res, 429, "RATE_LIMITED");
    const retry = Number(res.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(780);
    expect(retry).toBeLessThanOrEqual(840);
    expect(await twoFactorRow(user.id)).toEqual(before);
    const disable = await user.call("POST", "/api/2fa/disable", {
      body: { code: await codeFor(e.secret, 1) },
    });
    await expectErrorBody(disable, 429, "RATE_LIMITED");
    expect(await (await user.call("GET", "/api/2fa/status")).json()).toMatchObject({
      enrolled: true,
    });
  });

  it("once the window has passed, a right code is accepted again", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    await setWrongCodes(user.id, 10, Date.now() - FIFTEEN_MINUTES - 1000);
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: await codeFor(e.secret, 1) } }))
        .status,
    ).toBe(200);
    expect((await twoFactorRow(user.id))?.failed_count).toBe(0);
  });

  it("right codes do not count toward the lockout; wrong ones do", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const start = Date.now() - 1000;
    await setWrongCodes(user.id, 9, start);
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: await codeFor(e.secret, 1) } }))
        .status,
    ).toBe(200);
    expect(await twoFactorRow(user.id)).toMatchObject({
      failed_count: 9,
      failed_window_start: start,
    });
    expect((await user.call("POST", "/api/2fa/verify", { body: { code: "000000" } })).status).toBe(
      401,
    );
    const locked = await user.call("POST", "/api/2fa/verify", {
      body: { code: e.recoveryCodes[0] },
    });
    expect(locked.status).toBe(429);
  });

  it("re-enrolling does not reset the wrong-code window", async () => {
    const user = await TestUser.create();
    const start = Date.now() - 1000;
    await enroll(user);
    await setWrongCodes(user.id, 10, start);
    const e = await enroll(user);
    expect(await twoFactorRow(user.id)).toMatchObject({
      failed_count: 10,
      failed_window_start: start,
    });
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: await codeFor(e.secret) } }))
        .status,
    ).toBe(429);
  });

  it("two concurrent requests with the same code: exactly one is accepted", async () => {
    const user = await TestUser.create();
    const e = await enroll(user);
    const code = await codeFor(e.secret);
    const results = await Promise.all(
      [0, 1, 2].map(() => user.call("POST", "/api/2fa/verify", { body: { code } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
  });

  it("one user's code and recovery codes mean nothing for another user", async () => {
    const alice = await TestUser.create();
    const bob = await TestUser.create();
    const a = await enrollAndConfirm(alice);
    await enroll(bob);
    expect(
      (await bob.call("POST", "/api/2fa/verify", { body: { code: await codeFor(a.secret, 1) } }))
        .status,
    ).toBe(401);
    expect(
      (await bob.call("POST", "/api/2fa/disable", { body: { code: a.recoveryCodes[0] } })).status,
    ).toBe(401);
    expect(await (await alice.call("GET", "/api/2fa/status")).json()).toMatchObject({
      enrolled: true,
      recoveryCodesRemaining: 10,
    });
  });

  it("disable is a sensitive operation: a stale sign-in needs step-up unless the device is trusted", async () => {
    const { user, enrollment: e } = await enrolledSignIn(3600);
    // A new device takes a recent sign-in, and the code this sign-in was asked for is one (D20):
    // register both devices now, then make the code as old as the sign-in.
    const recognized = await registerDevice(user, "recognized");
    const trusted = await registerDevice(user, "trusted");
    await ageSecondFactor(user.id, 3600);
    const res = await user.call("POST", "/api/2fa/disable", {
      body: { code: await codeFor(e.secret, 2) },
    });
    const body = await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
    expect(body.maxAge).toBe(300);
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer error="insufficient_user_authentication", max_age=300',
    );
    const fromRecognized = await user.call("POST", "/api/2fa/disable", {
      body: { code: e.recoveryCodes[0] },
      headers: { "x-device-fingerprint": recognized },
    });
    await expectErrorBody(fromRecognized, 401, "STEP_UP_REQUIRED");
    const ok = await user.call("POST", "/api/2fa/disable", {
      body: { code: e.recoveryCodes[0] },
      headers: { "x-device-fingerprint": trusted },
    });
    expect(ok.status).toBe(200);
  });

  it("replacing a confirmed 2FA needs the same recent sign-in as a first enrollment", async () => {
    const { user, enrollment: e } = await enrolledSignIn(3600);
    await ageSecondFactor(user.id, 3600);
    const res = await user.call("POST", "/api/2fa/enroll", {
      body: { code: await codeFor(e.secret, 2) },
    });
    expect((await expectErrorBody(res, 401, "STEP_UP_REQUIRED")).maxAge).toBe(300);
    // A stale sign-in of an account without 2FA is refused its first enrollment just the same.
    const other = await (await TestUser.create({ authAge: 0 })).withToken({ authAge: 3600 });
    expect(
      (await expectErrorBody(await other.call("POST", "/api/2fa/enroll"), 401, "STEP_UP_REQUIRED"))
        .maxAge,
    ).toBe(300);
    // Nothing was replaced: the current factor still verifies.
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: e.recoveryCodes[1] } })).status,
    ).toBe(200);
  });
});
