import { describe, expect, it } from "vitest";
import { BUILTIN_SERVICES } from "../../src/kernel/registry/services";
import {
  BuiltinService,
  CreateOverrideBody,
  isValidHostname,
} from "../../src/domains/registry/schema";

describe("built-in service registry", () => {
  it("holds 103 services with distinct, normalised domains", () => {
    expect(BUILTIN_SERVICES).toHaveLength(103);
    const domains = BUILTIN_SERVICES.map((s) => s.domain);
    expect(new Set(domains).size).toBe(103);
    for (const d of domains) {
      expect(isValidHostname(d), d).toBe(true);
      expect(d).toBe(d.toLowerCase());
      expect(d.startsWith("www.")).toBe(false);
    }
  });

  it.each(BUILTIN_SERVICES.map((s) => [s.domain, s] as const))(
    "%s validates against the override schema",
    (_d, s) => {
      const asOverride = CreateOverrideBody.safeParse(s);
      expect(asOverride.success, JSON.stringify(asOverride.error?.issues)).toBe(true);
      expect(BuiltinService.safeParse(s).success).toBe(true);
      for (const p of [...s.link_patterns, ...(s.otp_patterns ?? [])])
        expect(() => new RegExp(p, "i")).not.toThrow();
      expect(new URL(s.reset_url as string).protocol).toBe("https:");
    },
  );

  it("covers every category of the spec", () => {
    const cats = new Set(BUILTIN_SERVICES.map((s) => s.category));
    for (const c of [
      "big-tech",
      "social",
      "finance",
      "productivity",
      "shopping",
      "gaming",
      "developer",
      "email",
      "other",
    ])
      expect(cats.has(c as never)).toBe(true);
  });

  it("link patterns match a reset link of the service's own domain and not a look-alike", () => {
    const gh = BUILTIN_SERVICES.find((s) => s.domain === "github.com") as BuiltinService;
    const res = gh.link_patterns.map((p) => new RegExp(p, "i"));
    expect(res.some((r) => r.test("https://github.com/password_reset/abc123"))).toBe(true);
    expect(res.some((r) => r.test("https://github.com.evil.test/password_reset/abc123"))).toBe(
      false,
    );
  });
});
