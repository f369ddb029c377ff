import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import { productionVars } from "../support/production-env";

// DECISIONS D18 (docs/decisions/hardening.md, "Hardening: limits, abuse and failure" item 12): production has no development defaults.
const production = productionVars;

async function health(vars: Record<string, unknown>) {
  const log = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    const res = await buildApp().request("/api/health", {}, vars);
    return {
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
      logged: log.mock.calls.map((c) => c.join(" ")).join("\n"),
    };
  } finally {
    log.mockRestore();
  }
}

describe("production configuration fails closed", () => {
  it("a complete production configuration serves", async () => {
    expect((await health(production)).status).toBe(200);
  });

  it.each([
    "IDP_ISSUER",
    "IDP_AUDIENCE",
    "DATA_ENCRYPTION_KEY",
    "MAIL_TRANSPORT",
    "MAIL_API_KEY",
    "ENVIRONMENT",
  ])("without %s: 500 INTERNAL_ERROR and a log line naming it", async (name) => {
    const r = await health({ ...production, [name]: undefined });
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ code: "INTERNAL_ERROR", status: 500 });
    expect(r.logged).toContain(name);
  });

  it("no silent outbox in production: MAIL_TRANSPORT=outbox is refused", async () => {
    const r = await health({ ...production, MAIL_TRANSPORT: "outbox" });
    expect(r.status).toBe(500);
    expect(r.logged).toContain("MAIL_TRANSPORT");
  });

  it("production refuses OUTBOUND_ALLOW_PRIVATE=true", async () => {
    const r = await health({ ...production, OUTBOUND_ALLOW_PRIVATE: "true" });
    expect(r.status).toBe(500);
    expect(r.logged).toContain("OUTBOUND_ALLOW_PRIVATE");
  });

  it("development keeps its defaults: no issuer, audience or mail transport needed", async () => {
    const r = await health({
      ...env,
      ENVIRONMENT: "development",
      IDP_ISSUER: undefined,
      IDP_AUDIENCE: undefined,
      MAIL_TRANSPORT: undefined,
    });
    expect(r.status).toBe(200);
  });
});
