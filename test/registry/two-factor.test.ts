import { describe, expect, it } from "vitest";
import { BUILTIN_SERVICES } from "../../src/kernel/registry/services";
import { TOTP_SERVICES } from "../../src/kernel/registry/two-factor";

describe("built-in services that offer TOTP", () => {
  it("are all built-in services, each listed once", () => {
    const domains = new Set(BUILTIN_SERVICES.map((s) => s.domain));
    for (const d of TOTP_SERVICES) expect(domains, d).toContain(d);
    expect(new Set(TOTP_SERVICES).size).toBe(TOTP_SERVICES.length);
  });
});
