import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { registerDevice } from "../support/session-shares";
import { codeFor, enroll, enrollAndConfirm, twoFactorRow } from "../support/two-factor";

/** The account's own mail and in-app notices about its second factor, oldest first. */
async function notices(user: TestUser): Promise<{ mail: string[]; app: string[] }> {
  const mail = await env.DB.prepare(
    "SELECT kind FROM outbound_emails WHERE to_address = ? AND kind LIKE 'two_factor.%' ORDER BY created_at, rowid",
  )
    .bind(user.email.toLowerCase())
    .all<{ kind: string }>();
  const res = await user.call("GET", "/api/notifications");
  const { notifications } = (await res.json()) as {
    notifications: { type: string; action_url: string | null }[];
  };
  return {
    mail: mail.results.map((r) => r.kind),
    app: notifications
      .filter((n) => n.type.startsWith("two_factor_"))
      .map((n) => `${n.type} ${n.action_url}`)
      .sort(),
  };
}

describe("account 2FA: a first enrollment needs a recent sign-in, and confirming it is not one (D20)", () => {
  it("a stale sign-in cannot enrol, even from a trusted device, and its attempt stores nothing", async () => {
    const owner = await TestUser.create({ authAge: 0 });
    const trusted = await registerDevice(owner, "trusted");
    // The same account, signed in an hour ago: what a token stolen back then can do.
    const stale = await owner.withToken({ authAge: 3600 });
    for (const headers of [{}, { "x-device-fingerprint": trusted }] as Record<string, string>[]) {
      const res = await stale.call("POST", "/api/2fa/enroll", { headers });
      const body = await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
      expect(body.maxAge).toBe(300);
      expect(res.headers.get("www-authenticate")).toBe(
        'Bearer error="insufficient_user_authentication", max_age=300',
      );
    }
    // Just past the limit is past it.
    await expectErrorBody(
      await (await owner.withToken({ authAge: 320 })).call("POST", "/api/2fa/enroll"),
      401,
      "STEP_UP_REQUIRED",
    );
    expect(await twoFactorRow(owner.id)).toBeNull();
    expect(await (await owner.call("GET", "/api/2fa/status")).json()).toMatchObject({
      enrolled: false,
      pending: false,
    });
    // The owner's own recent sign-in enrols, and an hour-old one still reaches the vault.
    const e = await enrollAndConfirm(owner);
    expect(e.recoveryCodes).toHaveLength(10);
    expect((await stale.call("GET", "/api/2fa/status")).status).toBe(200);
  });

  it("the confirming code does not make the sign-in fresh: step-up still asks for a recent sign-in", async () => {
    // Four minutes old: recent enough to enrol (300 s), too old for the dead man's switch (90 s).
    const user = await TestUser.create({ authAge: 240 });
    const e = await enrollAndConfirm(user);
    expect((await user.call("GET", "/api/passwords")).status).toBe(200);
    const res = await user.call("POST", "/api/dead-man-switch", { body: { inactivity_days: 30 } });
    expect((await expectErrorBody(res, 401, "STEP_UP_REQUIRED")).maxAge).toBe(90);
    // A later code on the same sign-in is one it was asked for (a step-up by code): that one counts.
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: await codeFor(e.secret, 1) } }))
        .status,
    ).toBe(200);
    expect(
      (await user.call("POST", "/api/dead-man-switch", { body: { inactivity_days: 30 } })).status,
    ).toBe(201);
  });

  it("confirming a replacement is not a sign-in either, and the current code given to replace refreshes nothing", async () => {
    const user = await TestUser.create({ authAge: 0 });
    const e = await enrollAndConfirm(user);
    const trusted = await registerDevice(user, "trusted");
    // A sign-in of four minutes that passed its code two minutes ago...
    const later = await user.withToken({ authAge: 240 });
    expect(
      (await later.call("POST", "/api/2fa/verify", { body: { code: e.recoveryCodes[0] } })).status,
    ).toBe(200);
    await env.DB.prepare(
      "UPDATE two_factor_sign_ins SET verified_at = verified_at - 120, fresh_at = fresh_at - 120 WHERE user_id = ?",
    )
      .bind(user.id)
      .run();
    // ...replaces the factor from the trusted device with a current code, and confirms the new one.
    const re = await later.call("POST", "/api/2fa/enroll", {
      body: { code: e.recoveryCodes[1] },
      headers: { "x-device-fingerprint": trusted },
    });
    expect(re.status).toBe(200);
    const fresh = (await re.json()) as { secret: string };
    expect(
      (await later.call("POST", "/api/2fa/verify", { body: { code: await codeFor(fresh.secret) } }))
        .status,
    ).toBe(200);
    // Neither code made it fresh: the switch (90 s) still asks.
    await expectErrorBody(
      await later.call("POST", "/api/dead-man-switch", { body: { inactivity_days: 30 } }),
      401,
      "STEP_UP_REQUIRED",
    );
  });

  it("the owner is told by mail and in the app when 2FA is turned on, replaced and turned off", async () => {
    const user = await TestUser.create({ authAge: 0 });
    const pending = await enroll(user);
    // Starting an enrollment changes nothing the owner relies on yet.
    expect(await notices(user)).toEqual({ mail: [], app: [] });
    expect(
      (
        await user.call("POST", "/api/2fa/verify", {
          body: { code: await codeFor(pending.secret) },
        })
      ).status,
    ).toBe(200);
    expect(await notices(user)).toEqual({
      mail: ["two_factor.enabled"],
      app: ["two_factor_enabled /security"],
    });

    const re = await user.call("POST", "/api/2fa/enroll", {
      body: { code: pending.recoveryCodes[0] },
    });
    expect(re.status).toBe(200);
    const replacement = (await re.json()) as { secret: string; recoveryCodes: string[] };
    expect(await notices(user)).toEqual({
      mail: ["two_factor.enabled", "two_factor.replaced"],
      app: ["two_factor_enabled /security", "two_factor_replaced /security"],
    });
    // Confirming the replacement was told already, when the old factor stopped working.
    expect(
      (
        await user.call("POST", "/api/2fa/verify", {
          body: { code: await codeFor(replacement.secret) },
        })
      ).status,
    ).toBe(200);
    expect((await notices(user)).mail).toHaveLength(2);

    expect(
      (
        await user.call("POST", "/api/2fa/disable", {
          body: { code: replacement.recoveryCodes[0] },
        })
      ).status,
    ).toBe(200);
    const all = await notices(user);
    expect(all.mail).toEqual(["two_factor.enabled", "two_factor.replaced", "two_factor.disabled"]);
    expect(all.app).toEqual([
      "two_factor_disabled /security",
      "two_factor_enabled /security",
      "two_factor_replaced /security",
    ]);
    // A mail says what happened and where to act, and carries no secret.
    const { results } = await env.DB.prepare(
      "SELECT subject, text_body FROM outbound_emails WHERE to_address = ? AND kind = 'two_factor.enabled'",
    )
      .bind(user.email.toLowerCase())
      .all<{ subject: string; text_body: string }>();
    expect(results[0].subject).toBe("Two-factor authentication turned on");
    expect(results[0].text_body).toContain("https://app.test/security");
    expect(results[0].text_body).not.toContain(pending.secret);
  });

  it("a refused enrollment or a wrong confirming code tells nobody", async () => {
    const user = await TestUser.create({ authAge: 0 });
    const stale = await user.withToken({ authAge: 900 });
    await expectErrorBody(await stale.call("POST", "/api/2fa/enroll"), 401, "STEP_UP_REQUIRED");
    await enroll(user);
    expect((await user.call("POST", "/api/2fa/verify", { body: { code: "000000" } })).status).toBe(
      401,
    );
    expect(await notices(user)).toEqual({ mail: [], app: [] });
  });
});
