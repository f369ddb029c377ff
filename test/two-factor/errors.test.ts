import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { codeFor, enroll, enrollAndConfirm, twoFactorRow } from "../support/two-factor";

describe("account 2FA: errors", () => {
  it("a wrong code is 401 with verified: false in the standard body", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    const right = await codeFor(e.secret);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    const res = await user.call("POST", "/api/2fa/verify", { body: { code: wrong } });
    const body = await expectErrorBody(res, 401, "UNAUTHORIZED");
    expect(body.verified).toBe(false);
  });

  it("a code is accepted once: a replay, or an earlier code of the window, is 401", async () => {
    const user = await TestUser.create();
    const e = await enroll(user);
    const next = await codeFor(e.secret, 1);
    expect((await user.call("POST", "/api/2fa/verify", { body: { code: next } })).status).toBe(200);
    const replay = await user.call("POST", "/api/2fa/verify", { body: { code: next } });
    expect((await expectErrorBody(replay, 401, "UNAUTHORIZED")).verified).toBe(false);
    const earlier = await user.call("POST", "/api/2fa/verify", {
      body: { code: await codeFor(e.secret) },
    });
    expect(earlier.status).toBe(401);
  });

  it("codes outside the one-step window are refused", async () => {
    const user = await TestUser.create();
    const e = await enroll(user);
    for (const steps of [-3, 3]) {
      expect(
        (
          await user.call("POST", "/api/2fa/verify", {
            body: { code: await codeFor(e.secret, steps) },
          })
        ).status,
      ).toBe(401);
    }
    expect((await twoFactorRow(user.id))?.enrolled_at).toBeNull();
  });

  it("verify and disable without enrollment are 422 UNPROCESSABLE", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/2fa/verify", { body: { code: "123456" } }),
      422,
      "UNPROCESSABLE",
    );
    await expectErrorBody(
      await user.call("POST", "/api/2fa/disable", { body: { code: "123456" } }),
      422,
      "UNPROCESSABLE",
    );
  });

  it("malformed bodies are 400 VALIDATION_ERROR naming the field, and count no attempt", async () => {
    const user = await TestUser.create();
    await enroll(user);
    const cases: [unknown, string][] = [
      [{}, "code"],
      [{ code: 123456 }, "code"],
      [{ code: "" }, "code"],
      [{ code: "   " }, "code"],
      [{ code: "1".repeat(65) }, "code"],
    ];
    for (const [body, field] of cases) {
      const res = await user.call("POST", "/api/2fa/verify", { body });
      const err = await expectErrorBody(res, 400, "VALIDATION_ERROR");
      expect(err.details?.map((d) => d.field)).toContain(field);
    }
    await expectErrorBody(
      await user.call("POST", "/api/2fa/verify", {
        rawBody: "{not json",
        headers: { "content-type": "application/json" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect((await twoFactorRow(user.id))?.failed_count).toBe(0);
  });

  it("a recovery code cannot confirm a pending enrollment", async () => {
    const user = await TestUser.create();
    const e = await enroll(user);
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: e.recoveryCodes[0] } })).status,
    ).toBe(401);
    expect((await twoFactorRow(user.id))?.enrolled_at).toBeNull();
  });

  it("disable with a wrong code is 401 and leaves 2FA on", async () => {
    const user = await TestUser.create();
    await enrollAndConfirm(user);
    const res = await user.call("POST", "/api/2fa/disable", { body: { code: "000000" } });
    await expectErrorBody(res, 401, "UNAUTHORIZED");
    expect(await (await user.call("GET", "/api/2fa/status")).json()).toMatchObject({
      enrolled: true,
    });
  });

  it("enrollment is limited to 5 per 15 minutes", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < 5; i++)
      expect((await user.call("POST", "/api/2fa/enroll")).status).toBe(200);
    const res = await user.call("POST", "/api/2fa/enroll");
    await expectErrorBody(res, 429, "RATE_LIMITED");
    const retry = Number(res.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(800);
    expect(retry).toBeLessThanOrEqual(900);
  });
});
