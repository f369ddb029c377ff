/**
 * The vault form's password generator: random characters from the classes the person picks, or
 * random words, within the service registry's password rules for the entry's site. The rules are
 * the built-in registry's, published by the build as one static file (/password-rules.json): the
 * same request for every entry, so nothing about the entry leaves the device.
 */

import {
  DIGITS,
  SYMBOLS,
  generateFromClasses,
  randomBelow,
} from "../../src/kernel/password-generator";
import type { PasswordRequirements } from "../../src/kernel/password-rules";

/** The registry's password requirements: the shared pure layer's type (src/kernel/password-rules.ts). */
export type Requirements = PasswordRequirements;

export type RulesTable = {
  default: Requirements;
  services: { domain: string; name: string; rules: Requirements }[];
  /** Domains of services that offer authenticator-app codes (TOTP); absent in an older file. */
  totp?: string[];
};

export type CharOptions = {
  length: number;
  lower: boolean;
  upper: boolean;
  digits: boolean;
  symbols: boolean;
};

export const DEFAULT_LENGTH = 20;
export const DEFAULT_WORDS = 5;

/** The host of a website or URL field, lower case, without "www."; null when there is none. */
export function hostOf(site: string): string | null {
  const s = site.trim().toLowerCase();
  if (!s) return null;
  try {
    return new URL(s.includes("://") ? s : `https://${s}`).hostname.replace(/^www\./, "") || null;
  } catch {
    return null;
  }
}

/** The rules of the site's service (the domain itself or a subdomain of it), else the defaults. */
export function rulesFor(
  table: RulesTable,
  site: string,
): { service: string | null; rules: Requirements } {
  const host = hostOf(site);
  const hit = host
    ? table.services.find((s) => host === s.domain || host.endsWith(`.${s.domain}`))
    : undefined;
  return { service: hit?.name ?? null, rules: { ...table.default, ...hit?.rules } };
}

/**
 * The character options within a service's rules: a class it requires is forced on, a length
 * outside its range is brought into it. Returns what was changed, for the form to say.
 */
export function withinRules(
  o: CharOptions,
  r: Requirements,
): { options: CharOptions; forced: string[] } {
  const forced: string[] = [];
  const out = { ...o };
  const force = (
    key: "lower" | "upper" | "digits" | "symbols",
    required: boolean | undefined,
    label: string,
  ) => {
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

/** A password with at least one character of every chosen class, shuffled. */
export function generatePassword(o: CharOptions, r: Requirements = {}): string {
  return generateFromClasses(o, o.length, r);
}

/**
 * Words drawn uniformly from a list, joined by "-", with one word capitalised, a digit and a symbol
 * added when the service's rules ask for them. Words are dropped (down to one) until it fits the
 * service's maximum length.
 */
export function generatePassphrase(
  words: readonly string[],
  count: number,
  r: Requirements = {},
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

let table: Promise<RulesTable> | undefined;
const FALLBACK: RulesTable = { default: { minLength: 8, maxLength: 64 }, services: [] };

/** The registry's rules, fetched once per page (the service worker keeps them for offline use). */
export function passwordRules(): Promise<RulesTable> {
  table ??= fetch("/password-rules.json")
    .then((r) => (r.ok ? (r.json() as Promise<RulesTable>) : FALLBACK))
    .catch(() => FALLBACK);
  return table;
}
