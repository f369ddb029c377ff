/**
 * The character generator that the web app's form and the extension's popup share: uniform random
 * characters from the chosen classes, at least one of each, within a service's password rules
 * (characters it refuses are never drawn; its own symbol set replaces ours).
 */
import type { PasswordRequirements } from "./password-rules";

/** Look-alikes (l, I, O, 0, 1) are left out: a generated password is sometimes typed by hand. */
export const LOWER = "abcdefghijkmnopqrstuvwxyz";
export const UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ";
export const DIGITS = "23456789";
export const SYMBOLS = "!@#$%^&*-_+=?";

export type CharClasses = { lower: boolean; upper: boolean; digits: boolean; symbols: boolean };

/** Uniform index below n by rejection sampling (no modulo bias). */
export function randomBelow(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const buf = new Uint32Array(1);
  do crypto.getRandomValues(buf);
  while (buf[0]! >= limit);
  return buf[0]! % n;
}

/**
 * A password of `length` characters (more when there are more classes than characters) with at
 * least one character of every chosen class, shuffled (Fisher–Yates). With no usable class it falls
 * back to lower case and digits.
 */
export function generateFromClasses(
  classes: CharClasses,
  length: number,
  r: PasswordRequirements = {},
): string {
  const strip = (set: string) =>
    [...set].filter((c) => !(r.disallowedChars ?? "").includes(c)).join("");
  const chosen: [boolean, string][] = [
    [classes.lower, LOWER],
    [classes.upper, UPPER],
    [classes.digits, DIGITS],
    [classes.symbols, r.specificSymbols ?? SYMBOLS],
  ];
  let sets = chosen
    .filter(([on]) => on)
    .map(([, set]) => strip(set))
    .filter((s) => s.length > 0);
  if (sets.length === 0) sets = [strip(LOWER + DIGITS)];
  const total = Math.max(sets.length, length);
  const all = sets.join("");
  const chars = sets.map((s) => s[randomBelow(s.length)]!);
  while (chars.length < total) chars.push(all[randomBelow(all.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomBelow(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join("");
}
