/**
 * The attack catalogue for account 2FA: a cookie-authenticated mutation without its CSRF token,
 * another user's account named in a body (IDOR), replayed codes across routes, bodies past the
 * size cap and fields the routes do not take. Whether enrolment needs a fresh sign-in is not
 * asked here (test/two-factor/security.test.ts).
 */
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { oversized, viaCookie } from "../support/attacks";
import { base32Decode, referenceTotp } from "../support/rfc6238";
import { codeFor, enroll, enrollAndConfirm, twoFactorRow } from "../support/two-factor";

type Status = { enrolled: boolean; pending: boolean; recoveryCodesRemaining: number };
const status = async (u: TestUser) =>
  (await (await u.call("GET", "/api/2fa/status")).json()) as Status;

describe("account 2FA: attacks", () => {
  it("refuses every cookie-authenticated mutation without the user's CSRF token (none, another user's), changing nothing", async () => {
    const fresh = await TestUser.create();
    const pending = await TestUser.create();
    const enrolled = await TestUser.create();
    const p = await enroll(pending);
    const e = await enrollAndConfirm(enrolled);
    const foreign = await (await TestUser.create()).csrf();
    const rows = async () => [
      await twoFactorRow(fresh.id),
      await twoFactorRow(pending.id),
      await twoFactorRow(enrolled.id),
    ];
    const before = await rows();
    const calls: [TestUser, string, () => Promise<unknown>][] = [
      [fresh, "/api/2fa/enroll", async () => ({})],
      [pending, "/api/2fa/verify", async () => ({ code: await codeFor(p.secret) })],
      [enrolled, "/api/2fa/disable", async () => ({ code: e.recoveryCodes[0] })],
    ];
    for (const [who, path, body] of calls) {
      for (const csrf of [undefined, foreign]) {
        await expectErrorBody(
          await viaCookie(who, "POST", path, await body(), csrf),
          403,
          "FORBIDDEN",
        ).catch((err: Error) => {
          throw new Error(`POST ${path} csrf=${csrf ? "foreign" : "none"}: ${err.message}`);
        });
      }
    }
    expect(await rows()).toEqual(before);
    expect(before[0]).toBeNull();
    expect(await status(enrolled)).toMatchObject({ enrolled: true, recoveryCodesRemaining: 10 });
    // The same cookie with the user's own token is let in: the refusals above were the token's.
    expect(
      (
        await viaCookie(
          pending,
          "POST",
          "/api/2fa/verify",
          { code: await codeFor(p.secret) },
          await pending.csrf(),
        )
      ).status,
    ).toBe(200);
  });

  it("a body naming another account acts on the caller's only: status, verify and disable never reach it", async () => {
    const victim = await TestUser.create();
    const attacker = await TestUser.create();
    const v = await enrollAndConfirm(victim);
    const before = await twoFactorRow(victim.id);
    // The attacker has no 2FA of their own: each call is about them, whatever it names.
    for (const name of ["user_id", "userId", "sub"]) {
      await expectErrorBody(
        await attacker.call("POST", "/api/2fa/verify", {
          body: { code: await codeFor(v.secret, 1), [name]: victim.id },
        }),
        422,
        "UNPROCESSABLE",
      );
      await expectErrorBody(
        await attacker.call("POST", "/api/2fa/disable", {
          body: { code: v.recoveryCodes[0], [name]: victim.id },
        }),
        422,
        "UNPROCESSABLE",
      );
    }
    const seen = (await (
      await attacker.call("GET", `/api/2fa/status?user_id=${victim.id}&userId=${victim.id}`)
    ).json()) as Status;
    expect(seen).toMatchObject({ enrolled: false, pending: false, recoveryCodesRemaining: 0 });
    expect(await twoFactorRow(victim.id)).toEqual(before);
    expect(await status(victim)).toMatchObject({ enrolled: true, recoveryCodesRemaining: 10 });
  });

  it("a code spent on one route is spent for the others: a TOTP code or a recovery code does not verify and then disable", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const code = await codeFor(e.secret, 1);
    expect((await user.call("POST", "/api/2fa/verify", { body: { code } })).status).toBe(200);
    expect((await user.call("POST", "/api/2fa/disable", { body: { code } })).status).toBe(401);
    const recovery = e.recoveryCodes[0];
    expect((await user.call("POST", "/api/2fa/verify", { body: { code: recovery } })).status).toBe(
      200,
    );
    expect((await user.call("POST", "/api/2fa/verify", { body: { code: recovery } })).status).toBe(
      401,
    );
    expect((await user.call("POST", "/api/2fa/disable", { body: { code: recovery } })).status).toBe(
      401,
    );
    expect(await status(user)).toMatchObject({ enrolled: true, recoveryCodesRemaining: 9 });
  });

  it("refuses bodies past the 1 MiB cap with 413, counts no wrong code and changes nothing", async () => {
    const fresh = await TestUser.create();
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const before = await twoFactorRow(user.id);
    const calls: [TestUser, string, Record<string, unknown>][] = [
      [fresh, "/api/2fa/enroll", {}],
      [user, "/api/2fa/verify", { code: await codeFor(e.secret, 1) }],
      [user, "/api/2fa/disable", { code: e.recoveryCodes[0] }],
    ];
    for (const [who, path, fields] of calls) {
      const res = await who.call("POST", path, {
        rawBody: oversized(fields),
        headers: { "content-type": "application/json" },
      });
      await expectErrorBody(res, 413, "PAYLOAD_TOO_LARGE").catch((err: Error) => {
        throw new Error(`POST ${path}: ${err.message}`);
      });
    }
    expect(await twoFactorRow(fresh.id)).toBeNull();
    expect(await twoFactorRow(user.id)).toEqual(before);
    expect(await status(user)).toMatchObject({ enrolled: true, recoveryCodesRemaining: 10 });
  });

  it("fields the routes do not take change nothing: no chosen secret, recovery codes or confirmed enrolment", async () => {
    const user = await TestUser.create();
    const chosenSecret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const res = await user.call("POST", "/api/2fa/enroll", {
      body: {
        secret: chosenSecret,
        recoveryCodes: ["aaaa-bbbb"],
        enrolled: true,
        enrolled_at: new Date().toISOString(),
      },
    });
    expect(res.status).toBe(200);
    const e = (await res.json()) as { secret: string; recoveryCodes: string[] };
    expect(e.secret).not.toBe(chosenSecret);
    expect(e.recoveryCodes).not.toContain("aaaa-bbbb");
    expect(await status(user)).toMatchObject({ enrolled: false, pending: true });
    // A code from the chosen secret confirms nothing; the server's secret does.
    const forged = await referenceTotp(base32Decode(chosenSecret), Date.now() / 1000);
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: forged, verified: true } }))
        .status,
    ).toBe(401);
    expect(await status(user)).toMatchObject({ enrolled: false, pending: true });
    expect(
      (
        await user.call("POST", "/api/2fa/verify", {
          body: { code: await codeFor(e.secret), enrolled: false },
        })
      ).status,
    ).toBe(200);
    expect(await status(user)).toMatchObject({ enrolled: true, pending: false });
  });
});
