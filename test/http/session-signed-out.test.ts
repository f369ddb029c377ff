/**
 * GET /api/auth/session answers "nobody" to a visitor who presents no credential (the sign-in page
 * asks on every signed-out visit, and a refusal there was a failed request in every console), while
 * a credential that does not verify is still refused.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";

const session = (headers: Record<string, string> = {}) =>
  SELF.fetch("https://vault.test/api/auth/session", { headers });

describe("who is signed in", () => {
  it("nobody, with 200, when no credential is presented", async () => {
    const res = await session();
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ user: null, twoFactorRequired: false });
  });

  it("a token or cookie that does not verify is still 401", async () => {
    await expectErrorBody(
      await session({ authorization: "Bearer not.a.jwt" }),
      401,
      "UNAUTHORIZED",
    );
    await expectErrorBody(
      await session({ cookie: "__Host-access_token=garbage" }),
      401,
      "UNAUTHORIZED",
    );
  });

  it("the signed-in user, as before", async () => {
    const user = await TestUser.create();
    const res = await user.call("GET", "/api/auth/session");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(user.id);
  });
});
