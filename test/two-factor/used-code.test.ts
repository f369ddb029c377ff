/**
 * A right code whose time step was used already (RFC 6238 section 5.2: a step is accepted once) is
 * still refused, and the refusal says which case it was in `details`, so the sign-in page can say
 * "wait for the next code" instead of "wrong code". A wrong code says nothing more than before.
 */
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { codeFor, enroll, twoFactorRow } from "../support/two-factor";

type Refusal = {
  error: string;
  code: string;
  status: number;
  verified: boolean;
  details?: { field: string; message: string }[];
};

describe("account 2FA: a code used already", () => {
  it("refuses the confirming code a second time with details already_used; a wrong code has no details; the next code passes", async () => {
    const user = await TestUser.create();
    const { secret } = await enroll(user);
    const code = await codeFor(secret);
    const verify = (c: string) => user.call("POST", "/api/2fa/verify", { body: { code: c } });
    expect((await verify(code)).status).toBe(200);
    const usedStep = (await twoFactorRow(user.id))?.last_used_step;

    const again = await verify(code);
    expect(again.status).toBe(401);
    expect((await again.json()) as Refusal).toEqual({
      error: "Invalid or already used code",
      code: "UNAUTHORIZED",
      status: 401,
      verified: false,
      details: [{ field: "code", message: "already_used" }],
    });
    expect((await twoFactorRow(user.id))?.last_used_step).toBe(usedStep);

    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const refused = (await (await verify(wrong)).json()) as Refusal;
    // A wrong code could by chance be a neighbouring step's: only the plain refusal is asserted then.
    if (refused.status === 401) expect(refused.details).toBeUndefined();

    expect((await verify(await codeFor(secret, 1))).status).toBe(200);
  });
});
