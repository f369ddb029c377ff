import { describe, expect, it } from "vitest";
import {
  DIGITS,
  LOWER,
  SYMBOLS,
  UPPER,
  generateFromClasses,
  randomBelow,
} from "../../src/kernel/password-generator";

const all = { lower: true, upper: true, digits: true, symbols: true };
const has = (pw: string, set: string) => [...pw].some((c) => set.includes(c));

describe("the shared character generator", () => {
  it("draws at least one character of every chosen class, at the asked length", () => {
    for (let i = 0; i < 200; i++) {
      const pw = generateFromClasses(all, 8);
      expect(pw).toHaveLength(8);
      for (const set of [LOWER, UPPER, DIGITS, SYMBOLS]) expect(has(pw, set)).toBe(true);
    }
  });

  it("never draws a refused character, and uses the service's own symbols", () => {
    for (let i = 0; i < 200; i++) {
      const pw = generateFromClasses(all, 30, { disallowedChars: "abcAB23", specificSymbols: "%" });
      expect(pw).not.toMatch(/[abcAB23]/);
      expect([...pw].filter((c) => !/[a-zA-Z0-9]/.test(c)).every((c) => c === "%")).toBe(true);
    }
  });

  it("leaves out unchosen classes, and is longer than asked only to fit one of each", () => {
    const pw = generateFromClasses(
      { lower: false, upper: false, digits: true, symbols: false },
      12,
    );
    expect(pw).toMatch(/^[2-9]{12}$/);
    expect(generateFromClasses(all, 2)).toHaveLength(4);
    expect(
      generateFromClasses({ lower: false, upper: false, digits: false, symbols: false }, 10),
    ).toMatch(/^[a-z2-9]{10}$/);
  });

  it("picks uniformly: every index below n comes up, none above", () => {
    const seen = new Array(7).fill(0);
    for (let i = 0; i < 7000; i++) seen[randomBelow(7)]++;
    for (const n of seen) expect(n).toBeGreaterThan(800);
    expect(seen.reduce((a, b) => a + b, 0)).toBe(7000);
  });
});
