import { describe, expect, it } from "vitest";
import { CreateOverrideBody } from "../../src/domains/registry/schema";
import { adminFromFreshIp, uniqueDomain } from "../support/registry";

const full = (domain: string) => ({
  domain,
  name: "Example Service",
  logo_url: "https://cdn.example.test/logo.png",
  category: "developer",
  login_url: "https://example.test/login",
  reset_url: "https://example.test/forgot",
  passkey_setup_url: "https://example.test/passkeys",
  passkey_support_type: "sign-in",
  login_type: "password_reset",
  browser_type: "stealth",
  sender_patterns: ["@example.test"],
  gmail_search_queries: ["from:example.test subject:reset"],
  otp_patterns: ["\\b(\\d{6})\\b"],
  link_patterns: ["https://example\\.test/reset/\\S+"],
  success_indicators: ["check your inbox"],
  forgot_password_selectors: ["a.forgot"],
  email_input_selectors: ["form > input[name='email']"],
  submit_selectors: ["button#send"],
  submit_button_text: ["Send link"],
  skip_submit_patterns: ["Sign in with Google"],
  password_requirements: {
    minLength: 12,
    maxLength: 40,
    requireUppercase: true,
    requireLowercase: true,
    requireNumbers: true,
    requireSymbols: false,
    disallowedChars: "<>",
    specificSymbols: "!@#",
  },
  recovery_method: { primary: "email", secondary: "sms" },
  notes: "verified by hand",
  is_verified: true,
});

describe("admin service registry: happy paths", () => {
  it("creates an override with every field and lists it", async () => {
    const { admin, call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    const res = await call("POST", "/api/admin/services/registry", full(domain));
    expect(res.status).toBe(201);
    const body = (await res.json()) as { override: Record<string, unknown>; created: boolean };
    expect(body.created).toBe(true);
    expect(body.override).toMatchObject({
      domain,
      name: "Example Service",
      is_active: true,
      created_by: admin.id,
    });
    expect(typeof body.override.created_at).toBe("string");

    const list = (await (
      await call("GET", `/api/admin/services/registry?search=${domain.slice(0, 12).toUpperCase()}`)
    ).json()) as { overrides: Record<string, unknown>[]; count: number };
    expect(list.count).toBe(1);
    expect(list.overrides[0]).toMatchObject({
      ...full(domain),
      is_active: true,
      created_by: admin.id,
      updated_by: admin.id,
    });
  });

  it("normalises the domain: lower case, www. removed", async () => {
    const { call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    const res = await call("POST", "/api/admin/services/registry", {
      domain: `WWW.${domain.toUpperCase()}`,
      name: "Upper",
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { override: { domain: string } }).override.domain).toBe(domain);
  });

  it("accepts localhost as a domain (D14)", () => {
    expect(CreateOverrideBody.parse({ domain: "LOCALHOST", name: "Local test site" }).domain).toBe(
      "localhost",
    );
  });

  it("PATCH changes only the given fields; null clears one", async () => {
    const { call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    await call("POST", "/api/admin/services/registry", full(domain));
    const res = await call("PATCH", `/api/admin/services/registry/${domain}`, {
      name: "Renamed",
      notes: null,
    });
    expect(res.status).toBe(200);
    const { override } = (await res.json()) as { override: Record<string, unknown> };
    expect(override).toMatchObject({ ...full(domain), name: "Renamed", notes: null });
  });

  it("DELETE soft-deletes; the list still shows it unless active_only=true; create reactivates with new data", async () => {
    const { call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    await call("POST", "/api/admin/services/registry", full(domain));
    const del = await call("DELETE", `/api/admin/services/registry/${domain}`);
    expect(del.status).toBe(200);
    expect(((await del.json()) as { override: { is_active: boolean } }).override.is_active).toBe(
      false,
    );

    const all = (await (
      await call("GET", `/api/admin/services/registry?search=${domain}`)
    ).json()) as { overrides: { is_active: boolean }[] };
    expect(all.overrides).toHaveLength(1);
    expect(all.overrides[0].is_active).toBe(false);
    const active = (await (
      await call("GET", `/api/admin/services/registry?search=${domain}&active_only=true`)
    ).json()) as { count: number };
    expect(active.count).toBe(0);

    const again = await call("POST", "/api/admin/services/registry", {
      domain,
      name: "Second life",
      category: "gaming",
    });
    expect(again.status).toBe(201);
    const after = (await (
      await call("GET", `/api/admin/services/registry?search=${domain}`)
    ).json()) as { overrides: Record<string, unknown>[] };
    expect(after.overrides[0]).toMatchObject({
      domain,
      name: "Second life",
      category: "gaming",
      is_active: true,
      notes: null,
      sender_patterns: null,
    });
  });

  it("filters by exact category", async () => {
    const { call } = await adminFromFreshIp();
    const tag = crypto.randomUUID().slice(0, 6);
    const a = `cat-${tag}-a.example`;
    const b = `cat-${tag}-b.example`;
    await call("POST", "/api/admin/services/registry", {
      domain: a,
      name: "A",
      category: "finance",
    });
    await call("POST", "/api/admin/services/registry", { domain: b, name: "B", category: "email" });
    const res = (await (
      await call("GET", `/api/admin/services/registry?search=cat-${tag}&category=finance`)
    ).json()) as { overrides: { domain: string }[]; count: number };
    expect(res.overrides.map((o) => o.domain)).toEqual([a]);
    expect(res.count).toBe(1);
  });
});
