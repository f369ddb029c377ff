import { describe, expect, it } from "vitest";
import { BUILTIN_SERVICES } from "../../src/kernel/registry/services";
import { generatePassword, meetsRequirements } from "../../src/domains/reset/password-generator";

describe("password generator", () => {
  it("meets the requirements of every built-in service, 20 times each", () => {
    for (const s of BUILTIN_SERVICES) {
      for (let i = 0; i < 20; i++) {
        const pw = generatePassword(s.password_requirements);
        expect(meetsRequirements(pw, s.password_requirements), `${s.domain}: ${pw.length}`).toBe(
          true,
        );
      }
    }
  });

  it("honours a short maximum, specific symbols and disallowed characters", () => {
    const req = {
      minLength: 8,
      maxLength: 10,
      requireSymbols: true,
      specificSymbols: "#",
      disallowedChars: "aeiouAEIOU0",
    };
    for (let i = 0; i < 200; i++) {
      const pw = generatePassword(req);
      expect(pw.length).toBe(10);
      expect(pw).toMatch(/#/);
      expect(pw).not.toMatch(/[aeiouAEIOU0]/);
      expect(pw).toMatch(/^[A-Za-z0-9#]+$/);
      expect(meetsRequirements(pw, req)).toBe(true);
    }
  });

  it("reaches a long minimum and never adds symbols when they are not asked for", () => {
    const pw = generatePassword({ minLength: 100, requireSymbols: false });
    expect(pw.length).toBe(100);
    expect(pw).toMatch(/^[A-Za-z0-9]+$/);
  });

  it("contains every required class even at the shortest length", () => {
    for (let i = 0; i < 200; i++) {
      const pw = generatePassword({
        minLength: 1,
        maxLength: 4,
        requireUppercase: true,
        requireLowercase: true,
        requireNumbers: true,
        requireSymbols: true,
      });
      expect(pw).toMatch(/[A-Z]/);
      expect(pw).toMatch(/[a-z]/);
      expect(pw).toMatch(/[0-9]/);
      expect(pw).toMatch(/[^A-Za-z0-9]/);
    }
  });

  it("is not predictable: 1000 passwords are all distinct", () => {
    expect(new Set(Array.from({ length: 1000 }, () => generatePassword())).size).toBe(1000);
  });

  it("refuses requirements that exclude a required class entirely", () => {
    expect(() =>
      generatePassword({ requireNumbers: true, disallowedChars: "0123456789" }),
    ).toThrow();
  });

  it("meetsRequirements rejects what breaks a rule", () => {
    expect(meetsRequirements("short", { minLength: 8 })).toBe(false);
    expect(meetsRequirements("nouppercase1!", { requireUppercase: true })).toBe(false);
    expect(meetsRequirements("Abc1$", { specificSymbols: "#" })).toBe(false);
  });
});
