import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app";
import { registry } from "../../src/http/route";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { ageSecondFactor, codeFor, enrollAndConfirm, enrolledSignIn } from "../support/two-factor";

/** D20's list: what a sign-in reaches before its code. */
const EXEMPT = new Set([
  "GET /api/2fa/status",
  "POST /api/2fa/verify",
  "GET /api/health",
  "POST /api/devices",
]);

/** Every authenticated route but the exempt ones, from the route registry itself. */
function gatedRoutes(): { method: string; path: string }[] {
  if (registry.length === 0) buildApp();
  const seen = new Map<string, { method: string; path: string }>();
  for (const r of registry) {
    const method = r.method.toUpperCase();
    const key = `${method} ${r.path}`;
    if (r.auth === false || r.path.startsWith("/api/auth/") || EXEMPT.has(key)) continue;
    seen.set(key, {
      method,
      path: r.path.replace(/:provider\b/g, "mailx").replace(/:[A-Za-z_]\w*/g, crypto.randomUUID()),
    });
  }
  return [...seen.values()];
}

/** One call per route family that succeeds for a verified sign-in. */
const FAMILIES: [family: string, method: string, path: string, status: number][] = [
  ["passwords", "GET", "/api/passwords", 200],
  ["sync", "GET", "/api/passwords/sync", 200],
  ["vault", "GET", "/api/vault/emergency", 200],
  [
    "attachments",
    "GET",
    `/api/vault/attachments?parent_id=${crypto.randomUUID()}&parent_type=password`,
    404,
  ],
  ["dead man's switch", "GET", "/api/dead-man-switch/transfers", 200],
  ["devices", "GET", "/api/devices", 200],
  ["notifications", "GET", "/api/notifications", 200],
  ["push", "GET", "/api/push/vapid-public-key", 200],
  ["sharing", "GET", "/api/sharing?type=received", 200],
  ["identities", "GET", "/api/identities", 200],
  ["integrations", "GET", "/api/user-integrations", 200],
  ["discovery", "GET", "/api/accounts", 200],
  ["2fa", "POST", "/api/2fa/enroll", 401],
];

async function signInRow(userId: string): Promise<{ sign_in: string; verified_at: number }[]> {
  const { results } = await env.DB.prepare(
    "SELECT sign_in, verified_at FROM two_factor_sign_ins WHERE user_id = ?",
  )
    .bind(userId)
    .all<{ sign_in: string; verified_at: number }>();
  return results;
}

describe("account 2FA in force (D20)", () => {
  it("a new sign-in is refused on every gated route until a code, then every family answers", async () => {
    const first = await TestUser.create();
    const e = await enrollAndConfirm(first);
    await createEntry(first);
    const second = await first.withToken({ authAge: 5 });

    const routes = gatedRoutes();
    expect(routes.length).toBeGreaterThan(90);
    for (const r of routes) {
      const res = await second.call(r.method, r.path, {
        body: r.method === "GET" ? undefined : {},
      });
      const body = (await res.json()) as { code?: string; status?: number; error?: string };
      expect({ route: `${r.method} ${r.path}`, status: res.status, code: body.code }).toEqual({
        route: `${r.method} ${r.path}`,
        status: 401,
        code: "TWO_FACTOR_REQUIRED",
      });
      expect(body.status).toBe(401);
      expect(typeof body.error).toBe("string");
    }
    // Refused requests changed nothing: the vault still has its one entry.
    const list = (await (await first.call("GET", "/api/passwords")).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(1);

    // What a sign-in may do before its code.
    expect((await second.call("GET", "/api/auth/session")).status).toBe(200);
    expect(await (await second.call("GET", "/api/2fa/status")).json()).toMatchObject({
      enrolled: true,
    });
    expect((await second.call("GET", "/api/health")).status).toBe(200);

    const wrong = await second.call("POST", "/api/2fa/verify", { body: { code: "000000" } });
    expect(wrong.status).toBe(401);
    await expectErrorBody(await second.call("GET", "/api/passwords"), 401, "TWO_FACTOR_REQUIRED");

    expect(
      (await second.call("POST", "/api/2fa/verify", { body: { code: await codeFor(e.secret, 1) } }))
        .status,
    ).toBe(200);
    for (const [family, method, path, status] of FAMILIES) {
      const res = await second.call(method, path);
      expect({ family, status: res.status }).toEqual({ family, status });
    }
  });

  it("the sign-in that confirmed the enrollment is verified; a refreshed token of it stays verified", async () => {
    const authTime = Math.floor(Date.now() / 1000) - 30;
    const user = await TestUser.create({ authTime, sid: "session-a" });
    await enrollAndConfirm(user);
    expect((await user.call("GET", "/api/passwords")).status).toBe(200);
    const refreshed = await user.withToken({ authTime, sid: "session-a", expiresIn: 7200 });
    expect(refreshed.token).not.toBe(user.token);
    expect((await refreshed.call("GET", "/api/passwords")).status).toBe(200);
    // The same auth_time in another provider session is another sign-in.
    const otherSession = await user.withToken({ authTime, sid: "session-b" });
    await expectErrorBody(
      await otherSession.call("GET", "/api/passwords"),
      401,
      "TWO_FACTOR_REQUIRED",
    );
    // A new sign-in (a later auth_time) asks again.
    const later = await user.withToken({ authTime: authTime + 20, sid: "session-a" });
    await expectErrorBody(await later.call("GET", "/api/passwords"), 401, "TWO_FACTOR_REQUIRED");
    const rows = await signInRow(user.id);
    expect(rows.map((r) => r.sign_in)).toEqual([`${authTime}:session-a`]);
  });

  it("a token without auth_time is a sign-in of its own: each such token needs its code", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const bare = await user.withToken({ authAge: null });
    await expectErrorBody(await bare.call("GET", "/api/passwords"), 401, "TWO_FACTOR_REQUIRED");
    expect(
      (await bare.call("POST", "/api/2fa/verify", { body: { code: e.recoveryCodes[0] } })).status,
    ).toBe(200);
    expect((await bare.call("GET", "/api/passwords")).status).toBe(200);
    const another = await user.withToken({ authAge: null, expiresIn: 1800 });
    await expectErrorBody(await another.call("GET", "/api/passwords"), 401, "TWO_FACTOR_REQUIRED");
  });

  it("a recovery code verifies a sign-in once; the same code cannot verify another", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const a = await user.withToken({ authAge: 1 });
    // Another sign-in: its auth_time must differ from a's even when a second ticks between the two tokens.
    const b = await user.withToken({ authAge: 60 });
    const res = await a.call("POST", "/api/2fa/verify", { body: { code: e.recoveryCodes[2] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ verified: true, recoveryCodesRemaining: 9 });
    expect((await a.call("GET", "/api/passwords")).status).toBe(200);
    const again = await b.call("POST", "/api/2fa/verify", { body: { code: e.recoveryCodes[2] } });
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({ verified: false });
    await expectErrorBody(await b.call("GET", "/api/passwords"), 401, "TWO_FACTOR_REQUIRED");
  });

  it("a code the sign-in was asked for counts as a fresh sign-in for step-up; an old code does not", async () => {
    const { user, enrollment: e } = await enrolledSignIn(600);
    // auth_time is ten minutes old, the code seconds: the switch (90 s) can be saved.
    const saved = await user.call("POST", "/api/dead-man-switch", {
      body: { inactivity_days: 30 },
    });
    expect(saved.status).toBe(201);

    // The same sign-in's code, as if given ten minutes ago: the age runs from it and is stale.
    await ageSecondFactor(user.id, 600);
    const stale = await user.call("POST", "/api/dead-man-switch", {
      body: { inactivity_days: 31 },
    });
    const body = await expectErrorBody(stale, 401, "STEP_UP_REQUIRED");
    expect(body.maxAge).toBe(90);
    expect(stale.headers.get("www-authenticate")).toBe(
      'Bearer error="insufficient_user_authentication", max_age=90',
    );

    // Confirming it is you: a new code on the same sign-in.
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: e.recoveryCodes[1] } })).status,
    ).toBe(200);
    const again = await user.call("POST", "/api/dead-man-switch", {
      body: { inactivity_days: 32 },
    });
    expect(again.status).toBe(200);
    expect(
      ((await again.json()) as { switch: { inactivity_days: number } }).switch.inactivity_days,
    ).toBe(32);
  });

  it("a fresh auth_time still counts when the code is older", async () => {
    const user = await TestUser.create({ authAge: 0 });
    await enrollAndConfirm(user);
    await ageSecondFactor(user.id, 3000);
    expect(
      (await user.call("POST", "/api/dead-man-switch", { body: { inactivity_days: 30 } })).status,
    ).toBe(201);
  });

  it("turning 2FA off lets every sign-in in again and forgets the verified ones; a pending re-enrollment keeps it in force", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    // Re-enrollment over a confirmed 2FA: pending, and a new sign-in is still asked.
    const re = await user.call("POST", "/api/2fa/enroll", { body: { code: e.recoveryCodes[0] } });
    expect(re.status).toBe(200);
    const fresh = (await re.json()) as { secret: string; recoveryCodes: string[] };
    expect(await (await user.call("GET", "/api/2fa/status")).json()).toMatchObject({
      enrolled: false,
      pending: true,
    });
    const other = await user.withToken({ authAge: 3 });
    await expectErrorBody(await other.call("GET", "/api/passwords"), 401, "TWO_FACTOR_REQUIRED");
    // A code of the new secret verifies that sign-in (and confirms the re-enrollment).
    expect(
      (await other.call("POST", "/api/2fa/verify", { body: { code: await codeFor(fresh.secret) } }))
        .status,
    ).toBe(200);
    expect((await other.call("GET", "/api/passwords")).status).toBe(200);

    expect(
      (await user.call("POST", "/api/2fa/disable", { body: { code: fresh.recoveryCodes[0] } }))
        .status,
    ).toBe(200);
    expect(await signInRow(user.id)).toEqual([]);
    const third = await user.withToken({ authAge: 4 });
    expect((await third.call("GET", "/api/passwords")).status).toBe(200);
  });

  it("a user without 2FA is never asked", async () => {
    const user = await TestUser.create();
    expect((await user.call("GET", "/api/passwords")).status).toBe(200);
    const other = await user.withToken({ authAge: 100 });
    expect((await other.call("GET", "/api/devices")).status).toBe(200);
  });
});
