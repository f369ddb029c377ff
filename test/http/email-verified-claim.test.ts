import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import { signToken } from "../support/auth";
import { productionVars } from "../support/production-env";

// A token's email names a person only when the provider vouches for it; in production an absent
// `email_verified` is not a vouch unless the deployment says its provider omits the claim.
const production = productionVars;

async function sessionEmail(vars: Record<string, unknown>, emailVerified?: boolean) {
  const token = await signToken({ email: "person@corp.test", emailVerified });
  const log = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    const res = await buildApp().request(
      "/api/auth/session",
      { headers: { authorization: `Bearer ${token}` } },
      vars,
    );
    const body = (await res.json()) as { user?: { email: string | null }; code?: string };
    return {
      status: res.status,
      email: body.user?.email,
      code: body.code,
      logged: log.mock.calls.map((c) => c.join(" ")).join("\n"),
    };
  } finally {
    log.mockRestore();
  }
}

describe("IDP_EMAIL_VERIFIED_CLAIM", () => {
  it("production: a token without email_verified carries no email", async () => {
    expect(await sessionEmail(production)).toMatchObject({ status: 200, email: null });
  });

  it("production: email_verified true still names the address; false never does", async () => {
    expect((await sessionEmail(production, true)).email).toBe("person@corp.test");
    expect((await sessionEmail(production, false)).email).toBeNull();
  });

  it("production with absent-is-verified: the deployment's provider omits the claim, so its email counts", async () => {
    expect(
      (await sessionEmail({ ...production, IDP_EMAIL_VERIFIED_CLAIM: "absent-is-verified" })).email,
    ).toBe("person@corp.test");
    expect(
      (await sessionEmail({ ...production, IDP_EMAIL_VERIFIED_CLAIM: "absent-is-verified" }, false))
        .email,
    ).toBeNull();
  });

  it("production with required spelled out behaves as the default", async () => {
    expect(
      (await sessionEmail({ ...production, IDP_EMAIL_VERIFIED_CLAIM: "required" })).email,
    ).toBeNull();
  });

  it("an unknown value fails closed: 500 and a log line naming the variable", async () => {
    const r = await sessionEmail({ ...production, IDP_EMAIL_VERIFIED_CLAIM: "yes" });
    expect(r).toMatchObject({ status: 500, code: "INTERNAL_ERROR" });
    expect(r.logged).toContain("IDP_EMAIL_VERIFIED_CLAIM");
  });

  it("development keeps an absent claim as verified (local identity providers)", async () => {
    expect((await sessionEmail({ ...env, ENVIRONMENT: "development" })).email).toBe(
      "person@corp.test",
    );
  });
});
