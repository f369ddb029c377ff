import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { expectErrorBody, TestUser } from "../support/auth";
import { SELF } from "../support/worker";

// The mailboxes page offers only what this deployment can connect: the server says which mailbox
// providers the operator has set up, by the same test that the connect route applies.
type Providers = { providers: { provider: string; configured: boolean }[] };

/** The worker as a deployment whose operator left out some settings. */
function deploymentWithout(...unset: string[]) {
  const partial = { ...(env as unknown as Record<string, unknown>) };
  for (const k of unset) delete partial[k];
  return (path: string, token: string) =>
    worker.fetch!(
      new Request(`https://vault.test${path}`, {
        headers: { authorization: `Bearer ${token}` },
      }) as never,
      partial as never,
      createExecutionContext(),
    );
}

describe("GET /api/integrations/providers", () => {
  it("lists every mailbox provider as configured when the operator set them all up", async () => {
    const user = await TestUser.create();
    const res = await user.call("GET", "/api/integrations/providers");
    expect(res.status).toBe(200);
    expect(((await res.json()) as Providers).providers).toEqual([
      { provider: "mailx", configured: true },
      { provider: "maily", configured: true },
      { provider: "imap", configured: true },
    ]);
  });

  it("says configured:false for a provider without its settings, and connecting it is refused the same way", async () => {
    const user = await TestUser.create();
    const call = deploymentWithout("MAILY_CLIENT_ID", "MAILX_TOKEN_URL");
    const res = await call("/api/integrations/providers", user.token);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Providers).providers).toEqual([
      { provider: "mailx", configured: false },
      { provider: "maily", configured: false },
      { provider: "imap", configured: true },
    ]);
    for (const p of ["mailx", "maily"])
      await expectErrorBody(
        await call(`/api/integrations/${p}/auth`, user.token),
        503,
        "SERVICE_UNAVAILABLE",
      );
  });

  it("answers only a signed-in caller", async () => {
    await expectErrorBody(
      await SELF.fetch("https://vault.test/api/integrations/providers"),
      401,
      "UNAUTHORIZED",
    );
  });
});
