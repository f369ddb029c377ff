import { describe, expect, it } from "vitest";
import { expectErrorBody } from "../support/auth";
import { adminFromFreshIp, uniqueDomain } from "../support/registry";

const create = "/api/admin/services/registry";

describe("admin service registry: errors", () => {
  it("409 conflict (lower case) for an active duplicate, and nothing changes", async () => {
    const { call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    expect((await call("POST", create, { domain, name: "First" })).status).toBe(201);
    await expectErrorBody(
      await call("POST", create, { domain: `www.${domain}`, name: "Second" }),
      409,
      "conflict",
    );
    const list = (await (await call("GET", `${create}?search=${domain}`)).json()) as {
      overrides: { name: string }[];
    };
    expect(list.overrides[0].name).toBe("First");
  });

  it("404 for PATCH and DELETE of an absent override; DELETE of an inactive one is 404 too", async () => {
    const { call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    await expectErrorBody(
      await call("PATCH", `${create}/${domain}`, { name: "x" }),
      404,
      "not_found",
    );
    await expectErrorBody(await call("DELETE", `${create}/${domain}`), 404, "not_found");
    await call("POST", create, { domain, name: "x" });
    expect((await call("DELETE", `${create}/${domain}`)).status).toBe(200);
    await expectErrorBody(await call("DELETE", `${create}/${domain}`), 404, "not_found");
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ["missing name", {}, "name"],
    ["empty name", { name: "" }, "name"],
    ["name over 200", { name: "n".repeat(201) }, "name"],
    ["bad category", { category: "food" }, "category"],
    ["bad login_type", { login_type: "password" }, "login_type"],
    ["bad passkey_support_type", { passkey_support_type: "always" }, "passkey_support_type"],
    ["bad browser_type", { browser_type: "firefox" }, "browser_type"],
    ["logo_url not http", { logo_url: "ftp://x.test/logo.png" }, "logo_url"],
    ["logo_url javascript", { logo_url: "javascript:alert(1)" }, "logo_url"],
    ["reset_url not a URL", { reset_url: "not a url" }, "reset_url"],
    [
      "success_indicators over 20",
      { success_indicators: Array(21).fill("ok") },
      "success_indicators",
    ],
    [
      "success_indicator over 200 chars",
      { success_indicators: ["x".repeat(201)] },
      "success_indicators.0",
    ],
    [
      "forgot selectors over 20",
      { forgot_password_selectors: Array(21).fill("a") },
      "forgot_password_selectors",
    ],
    [
      "forgot selector over 500 chars",
      { forgot_password_selectors: ["a".repeat(501)] },
      "forgot_password_selectors.0",
    ],
    [
      "submit_button_text over 10",
      { submit_button_text: Array(11).fill("Go") },
      "submit_button_text",
    ],
    [
      "skip_submit_patterns over 10",
      { skip_submit_patterns: Array(11).fill("No") },
      "skip_submit_patterns",
    ],
    ["notes over 5000", { notes: "n".repeat(5001) }, "notes"],
    ["minLength 0", { password_requirements: { minLength: 0 } }, "password_requirements.minLength"],
    [
      "minLength 129",
      { password_requirements: { minLength: 129 } },
      "password_requirements.minLength",
    ],
    [
      "maxLength 257",
      { password_requirements: { maxLength: 257 } },
      "password_requirements.maxLength",
    ],
    [
      "min above max",
      { password_requirements: { minLength: 30, maxLength: 20 } },
      "password_requirements.minLength",
    ],
    [
      "disallowedChars over 50",
      { password_requirements: { disallowedChars: "x".repeat(51) } },
      "password_requirements.disallowedChars",
    ],
    [
      "specificSymbols over 50",
      { password_requirements: { specificSymbols: "!".repeat(51) } },
      "password_requirements.specificSymbols",
    ],
    ["unknown requirement", { password_requirements: { minLen: 3 } }, "password_requirements"],
    [
      "recovery without primary",
      { recovery_method: { secondary: "sms" } },
      "recovery_method.primary",
    ],
    ["is_verified not boolean", { is_verified: "yes" }, "is_verified"],
    ["unknown field", { is_active: false }, "body"],
  ];

  it.each(bad)("400 validation_failed: %s", async (_label, extra, field) => {
    const { call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    const body =
      "name" in extra || _label === "missing name"
        ? { domain, ...extra }
        : { domain, name: "Valid", ...extra };
    const res = await call("POST", create, body);
    const err = await expectErrorBody(res, 400, "validation_failed");
    expect(err.details?.map((d) => d.field)).toContain(field);
    const list = (await (await call("GET", `${create}?search=${domain}`)).json()) as {
      count: number;
    };
    expect(list.count).toBe(0);
  });

  it.each([
    ["ab"],
    ["-bad.example"],
    ["bad_label.example"],
    ["exa mple.com"],
    [`${"a".repeat(64)}.example`],
    ["a".repeat(254)],
  ])("400 for invalid domain %s", async (domain) => {
    const { call } = await adminFromFreshIp();
    const err = await expectErrorBody(
      await call("POST", create, { domain, name: "x" }),
      400,
      "validation_failed",
    );
    expect(err.details?.map((d) => d.field)).toContain("domain");
  });

  it("PATCH with an empty body is 400 and an invalid field changes nothing", async () => {
    const { call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    await call("POST", create, { domain, name: "Keep", category: "social" });
    await expectErrorBody(await call("PATCH", `${create}/${domain}`, {}), 400, "validation_failed");
    await expectErrorBody(
      await call("PATCH", `${create}/${domain}`, { name: "New", category: "nope" }),
      400,
      "validation_failed",
    );
    const list = (await (await call("GET", `${create}?search=${domain}`)).json()) as {
      overrides: { name: string; category: string }[];
    };
    expect(list.overrides[0]).toMatchObject({ name: "Keep", category: "social" });
  });

  it("bad query values are 400", async () => {
    const { call } = await adminFromFreshIp();
    await expectErrorBody(await call("GET", `${create}?active_only=yes`), 400, "validation_failed");
    await expectErrorBody(await call("GET", `${create}?category=food`), 400, "validation_failed");
  });
});
