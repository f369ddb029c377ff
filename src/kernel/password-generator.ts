/**
 * The password generator that the web app's form, its health fixes and the extension's popup share:
 * uniform random characters from the chosen classes, at least one of each, or random words, within
 * a service's password rules (characters it refuses are never drawn; its own symbol set replaces
 * ours). The rules come from the service registry (src/kernel/registry), looked up by site.
 */
import { hostCovers, normalizeHost } from "./hostname";
import type { PasswordRequirements } from "./password-rules";

/** Look-alikes (l, I, O, 0, 1) are left out: a generated password is sometimes typed by hand. */
export const LOWER = "abcdefghijkmnopqrstuvwxyz";
export const UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ";
export const DIGITS = "23456789";
export const SYMBOLS = "!@#$%^&*-_+=?";

export type CharClasses = { lower: boolean; upper: boolean; digits: boolean; symbols: boolean };
export type CharOptions = CharClasses & { length: number };

/** Long enough for ~120 bits from the full alphabet; a service's maximum may cut it shorter. */
export const DEFAULT_LENGTH = 20;
export const DEFAULT_WORDS = 5;

/** The registry's password rules as published for the browser (the build's /password-rules.json). */
export type RulesTable = {
  default: PasswordRequirements;
  services: { domain: string; name: string; rules: PasswordRequirements }[];
  /** Domains of services that offer authenticator-app codes (TOTP); absent in an older file. */
  totp?: string[];
};

/** Uniform index below n by rejection sampling (no modulo bias). */
export function randomBelow(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const buf = new Uint32Array(1);
  do crypto.getRandomValues(buf);
  while (buf[0]! >= limit);
  return buf[0]! % n;
}

/** The rules of the site's service (the domain itself or a subdomain of it), else the defaults. */
export function rulesFor(
  table: RulesTable,
  site: string,
): { service: string | null; rules: PasswordRequirements } {
  const host = normalizeHost(site);
  const hit = host ? table.services.find((s) => hostCovers(s.domain, host)) : undefined;
  return { service: hit?.name ?? null, rules: { ...table.default, ...hit?.rules } };
}

/**
 * The character options within a service's rules: a class it requires is forced on, a length
 * outside its range is brought into it. Returns what was changed, for the form to say.
 */
export function withinRules(
  o: CharOptions,
  r: PasswordRequirements,
): { options: CharOptions; forced: string[] } {
  const forced: string[] = [];
  const out = { ...o };
  const force = (key: keyof CharClasses, required: boolean | undefined, label: string) => {
    if (required && !out[key]) {
      out[key] = true;
      forced.push(label);
    }
  };
  force("lower", r.requireLowercase, "lower case");
  force("upper", r.requireUppercase, "upper case");
  force("digits", r.requireNumbers, "digits");
  force("symbols", r.requireSymbols, "symbols");
  const min = r.minLength ?? 8;
  const max = r.maxLength ?? 128;
  if (out.length < min || out.length > max) {
    out.length = Math.min(max, Math.max(min, out.length));
    forced.push(`length ${out.length}`);
  }
  return { options: out, forced };
}

/**
 * The options from a service's rules alone, where the person picks nothing (the extension's
 * popup): a class the service does not ask for is left out, since a service that does not require
 * symbols often refuses them; DEFAULT_LENGTH within its range.
 */
export function optionsFor(r: PasswordRequirements): CharOptions {
  return {
    lower: r.requireLowercase ?? true,
    upper: r.requireUppercase ?? true,
    digits: r.requireNumbers ?? true,
    symbols: r.requireSymbols ?? true,
    length: Math.max(r.minLength ?? 8, Math.min(DEFAULT_LENGTH, r.maxLength ?? DEFAULT_LENGTH)),
  };
}

/**
 * A password of `o.length` characters (more when there are more classes than characters) with at
 * least one character of every chosen class, shuffled (Fisher–Yates). With no usable class it falls
 * back to lower case and digits.
 */
export function generatePassword(o: CharOptions, r: PasswordRequirements = {}): string {
  const strip = (set: string) =>
    [...set].filter((c) => !(r.disallowedChars ?? "").includes(c)).join("");
  const chosen: [boolean, string][] = [
    [o.lower, LOWER],
    [o.upper, UPPER],
    [o.digits, DIGITS],
    [o.symbols, r.specificSymbols ?? SYMBOLS],
  ];
  let sets = chosen
    .filter(([on]) => on)
    .map(([, set]) => strip(set))
    .filter((s) => s.length > 0);
  if (sets.length === 0) sets = [strip(LOWER + DIGITS)];
  const total = Math.max(sets.length, o.length);
  const all = sets.join("");
  const chars = sets.map((s) => s[randomBelow(s.length)]!);
  while (chars.length < total) chars.push(all[randomBelow(all.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomBelow(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join("");
}

/**
 * Words drawn uniformly from a list, joined by "-", with one word capitalised, a digit and a symbol
 * added when the service's rules ask for them. Words are dropped (down to one) until it fits the
 * service's maximum length.
 */
export function generatePassphrase(
  words: readonly string[],
  count: number,
  r: PasswordRequirements = {},
): string {
  if (words.length === 0) throw new Error("The word list is not available");
  const picked = Array.from({ length: count }, () => words[randomBelow(words.length)]!);
  if (r.requireUppercase) {
    const i = randomBelow(picked.length);
    picked[i] = picked[i]!.charAt(0).toUpperCase() + picked[i]!.slice(1);
  }
  const separator = r.disallowedChars?.includes("-") ? " " : "-";
  let suffix = r.requireNumbers ? DIGITS[randomBelow(DIGITS.length)]! : "";
  if (r.requireSymbols) {
    const symbols = [...(r.specificSymbols ?? SYMBOLS)].filter(
      (c) => !(r.disallowedChars ?? "").includes(c),
    );
    if (symbols.length) suffix += symbols[randomBelow(symbols.length)];
  }
  const max = r.maxLength ?? Infinity;
  while (picked.length > 1 && picked.join(separator).length + suffix.length > max) picked.pop();
  return (picked.join(separator) + suffix).slice(0, max);
}
