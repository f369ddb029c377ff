/**
 * The popup's password generator. It honours the service registry's password requirements for the
 * site (the built-in registry, src/data/registry; the database overrides are an admin resource the
 * extension cannot read), else the registry's defaults.
 */
import { BUILTIN_SERVICES } from "../../src/data/registry/services";
import { DEFAULT_REQUIREMENTS, type PasswordRequirements } from "../../src/kernel/password-rules";
import { registrableDomain } from "./policy";

const LOWER = "abcdefghijkmnopqrstuvwxyz";
const UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ";
const DIGITS = "23456789";
const SYMBOLS = "!@#$%^&*-_+=?";
/** Long enough for ~120 bits from the full alphabet; a service's maximum may cut it shorter. */
const PREFERRED_LENGTH = 20;

export function requirementsFor(url: string): { service: string | null; requirements: PasswordRequirements } {
  const domain = registrableDomain(url);
  const service = BUILTIN_SERVICES.find((s) => s.domain === domain);
  return { service: service?.name ?? null, requirements: { ...DEFAULT_REQUIREMENTS, ...service?.password_requirements } };
}

/** Uniform index below n by rejection sampling (no modulo bias). */
function randomBelow(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const buf = new Uint32Array(1);
  do crypto.getRandomValues(buf);
  while (buf[0]! >= limit);
  return buf[0]! % n;
}

export function generatePassword(r: PasswordRequirements): string {
  const strip = (set: string) => [...set].filter((c) => !(r.disallowedChars ?? "").includes(c)).join("");
  const wanted = [
    [r.requireLowercase ?? true, LOWER],
    [r.requireUppercase ?? true, UPPER],
    [r.requireNumbers ?? true, DIGITS],
    [r.requireSymbols ?? true, r.specificSymbols ?? SYMBOLS],
  ] as const;
  // Classes a service does not ask for are left out: a service that does not require symbols often refuses them.
  let sets = wanted.filter(([required]) => required).map(([, set]) => strip(set)).filter((s) => s.length > 0);
  if (sets.length === 0) sets = [strip(LOWER + DIGITS)];
  const length = Math.max(r.minLength ?? 8, sets.length, Math.min(PREFERRED_LENGTH, r.maxLength ?? PREFERRED_LENGTH));
  const all = sets.join("");
  const chars = sets.map((s) => s[randomBelow(s.length)]!);
  while (chars.length < length) chars.push(all[randomBelow(all.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomBelow(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join("");
}

export function describe(r: PasswordRequirements): string {
  const parts = [`${r.minLength ?? 8}–${r.maxLength ?? 64} characters`];
  if (r.requireUppercase) parts.push("upper case");
  if (r.requireLowercase) parts.push("lower case");
  if (r.requireNumbers) parts.push("digits");
  if (r.requireSymbols) parts.push(`symbols${r.specificSymbols ? ` (${r.specificSymbols})` : ""}`);
  return parts.join(", ");
}
