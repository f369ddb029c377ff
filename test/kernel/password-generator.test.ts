import { describe, expect, it } from "vitest";
import {
  DIGITS,
  LOWER,
  SYMBOLS,
  UPPER,
  generatePassphrase,
  generatePassword,
  optionsFor,
  randomBelow,
  rulesFor,
  withinRules,
} from "../../src/kernel/password-generator";

const all = { lower: true, upper: true, digits: true, symbols: true };
const has = (pw: string, set: string) => [...pw].some((c) => set.includes(c));

describe("the shared character generator", () => {
  it("draws at least one character of every chosen class, at the asked length", () => {
    for (let i = 0; i < 200; i++) {
      const pw = generatePassword({ ...all, length: 8 });
      expect(pw).toHaveLength(8);
      for (const set of [LOWER, UPPER, DIGITS, SYMBOLS]) expect(has(pw, set)).toBe(true);
    }
  });

  it("never draws a refused character, and uses the service's own symbols", () => {
    for (let i = 0; i < 200; i++) {
      const pw = generatePassword(
        { ...all, length: 30 },
        { disallowedChars: "abcAB23", specificSymbols: "%" },
      );
      expect(pw).not.toMatch(/[abcAB23]/);
      expect([...pw].filter((c) => !/[a-zA-Z0-9]/.test(c)).every((c) => c === "%")).toBe(true);
    }
  });

  it("leaves out unchosen classes, and is longer than asked only to fit one of each", () => {
    const pw = generatePassword({
      lower: false,
      upper: false,
      digits: true,
      symbols: false,
      length: 12,
    });
    expect(pw).toMatch(/^[2-9]{12}$/);
    expect(generatePassword({ ...all, length: 2 })).toHaveLength(4);
    expect(
      generatePassword({ lower: false, upper: false, digits: false, symbols: false, length: 10 }),
    ).toMatch(/^[a-z2-9]{10}$/);
  });

  it("picks uniformly: every index below n comes up, none above", () => {
    const seen = new Array(7).fill(0);
    for (let i = 0; i < 7000; i++) seen[randomBelow(7)]++;
    for (const n of seen) expect(n).toBeGreaterThan(800);
    expect(seen.reduce((a, b) => a + b, 0)).toBe(7000);
  });
});

describe("the options within a service's rules", () => {
  const table = {
    default: { minLength: 8, maxLength: 64 },
    services: [{ domain: "example.com", name: "Example", rules: { maxLength: 16 } }],
  };

  it("finds the service of a site by its domain or a subdomain, else the defaults", () => {
    expect(rulesFor(table, "https://www.Login.example.com/x")).toEqual({
      service: "Example",
      rules: { minLength: 8, maxLength: 16 },
    });
    for (const other of ["xexample.com", "example.com.evil.test", ""])
      expect(rulesFor(table, other)).toEqual({ service: null, rules: table.default });
  });

  it("forces on what a service requires and brings the length into its range, saying so", () => {
    const chosen = { lower: true, upper: false, digits: false, symbols: false, length: 40 };
    expect(withinRules(chosen, { requireUppercase: true, maxLength: 16 })).toEqual({
      options: { ...chosen, upper: true, length: 16 },
      forced: ["upper case", "length 16"],
    });
    expect(withinRules(chosen, {}).forced).toEqual([]);
  });

  it("with no choices: every class the service does not refuse, 20 characters within its range", () => {
    expect(optionsFor({})).toEqual({ ...all, length: 20 });
    expect(optionsFor({ requireSymbols: false, maxLength: 15 })).toEqual({
      ...all,
      symbols: false,
      length: 15,
    });
    expect(optionsFor({ minLength: 32 }).length).toBe(32);
  });
});

describe("passphrases", () => {
  const words = ["alpha", "bravo", "charlie", "delta"];

  it("joins the asked number of words, adding what the rules require", () => {
    expect(generatePassphrase(words, 5).split("-")).toHaveLength(5);
    const p = generatePassphrase(words, 4, {
      requireUppercase: true,
      requireNumbers: true,
      requireSymbols: true,
      specificSymbols: "#",
    });
    expect(p).toMatch(/^([A-Za-z]+-){3}[A-Za-z]+[2-9]#$/);
    expect(p).toMatch(/[A-Z]/);
  });

  it("avoids a refused separator and drops words to fit the maximum", () => {
    expect(generatePassphrase(words, 3, { disallowedChars: "-" })).toMatch(/^\w+ \w+ \w+$/);
    for (let i = 0; i < 50; i++)
      expect(generatePassphrase(words, 6, { maxLength: 12 }).length).toBeLessThanOrEqual(12);
    expect(() => generatePassphrase([], 3)).toThrow();
  });
});
