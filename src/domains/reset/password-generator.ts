import { randomBelow as randomIndex } from "../../kernel/password-generator";
import type { PasswordRequirements } from "../registry";

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS = "0123456789";
/** Symbols that survive HTML forms, shells and URL encoding on the sites we drive. */
const DEFAULT_SYMBOLS = "!@#$%^&*-_=+?.";
export const TARGET_LENGTH = 24;

const pick = (set: string) => set[randomIndex(set.length)];

/**
 * A password that meets a service's requirements: length TARGET_LENGTH clamped to [min, max];
 * lower case, upper case and digits unless they are disallowed; symbols only when required or a
 * specific set is given, since sites that do not ask for symbols often reject some of them.
 */
export function generatePassword(req: PasswordRequirements = {}): string {
  const disallowed = new Set(req.disallowedChars ?? "");
  const clean = (s: string) => [...s].filter((ch) => !disallowed.has(ch)).join("");
  const wantSymbols =
    req.requireSymbols === true ||
    (req.requireSymbols !== false && req.specificSymbols !== undefined);
  const classes = [
    { set: clean(LOWER), required: req.requireLowercase !== false },
    { set: clean(UPPER), required: req.requireUppercase !== false },
    { set: clean(DIGITS), required: req.requireNumbers !== false },
    ...(wantSymbols
      ? [{ set: clean(req.specificSymbols ?? DEFAULT_SYMBOLS), required: true }]
      : []),
  ];
  if (classes.some((c) => c.required && !c.set))
    throw new Error("password requirements leave a required class empty");
  const used = classes.filter((c) => c.set.length > 0);
  const min = req.minLength ?? 1;
  const max = req.maxLength ?? 256;
  const required = used.filter((c) => c.required);
  const length = Math.max(required.length, Math.min(Math.max(TARGET_LENGTH, min), max));
  const all = used.map((c) => c.set).join("");
  if (!all) throw new Error("password requirements leave no usable characters");
  const chars = required.map((c) => pick(c.set));
  while (chars.length < length) chars.push(pick(all));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomIndex(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join("");
}

/** Whether a password meets the requirements; the reset flow checks its own output with it. */
export function meetsRequirements(pw: string, req: PasswordRequirements = {}): boolean {
  if (req.minLength !== undefined && pw.length < req.minLength) return false;
  if (req.maxLength !== undefined && pw.length > req.maxLength) return false;
  if (req.requireUppercase && !/[A-Z]/.test(pw)) return false;
  if (req.requireLowercase && !/[a-z]/.test(pw)) return false;
  if (req.requireNumbers && !/[0-9]/.test(pw)) return false;
  const symbols = req.specificSymbols ?? DEFAULT_SYMBOLS;
  if (req.requireSymbols && ![...pw].some((ch) => symbols.includes(ch))) return false;
  if (
    req.specificSymbols &&
    [...pw].some((ch) => !/[A-Za-z0-9]/.test(ch) && !req.specificSymbols?.includes(ch))
  )
    return false;
  if (req.disallowedChars && [...pw].some((ch) => req.disallowedChars?.includes(ch))) return false;
  return true;
}
