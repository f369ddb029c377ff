/**
 * The service registry's vocabulary that browsers share with the worker: the password rules a
 * site imposes (the extension's generator honours them; the reset automation generates within
 * them) and the registry's closed lists. The registry domain builds its admin schemas on these.
 * Nothing here may import a library: the extension bundles this file.
 */

export const CATEGORIES = [
  "big-tech",
  "social",
  "finance",
  "productivity",
  "shopping",
  "gaming",
  "developer",
  "email",
  "other",
] as const;
export const LOGIN_TYPES = ["password_reset", "magic_link", "otp", "sso_only"] as const;
export const PASSKEY_SUPPORT_TYPES = ["sign-in", "sign-in-and-sign-up", "mfa-only"] as const;
export const BROWSER_TYPES = ["chromium", "stealth"] as const;

/**
 * The password rules a site imposes. A plain type here: browsers need the shape and the defaults,
 * not a validator (zod would add tens of kilobytes to the extension's popup); the registry domain
 * validates admin input with its own schema of this same shape (src/domains/registry/schema.ts,
 * checked against this type at compile time).
 */
export type PasswordRequirements = {
  minLength?: number;
  maxLength?: number;
  requireUppercase?: boolean;
  requireLowercase?: boolean;
  requireNumbers?: boolean;
  requireSymbols?: boolean;
  disallowedChars?: string;
  specificSymbols?: string;
};

/** What a site without rules of its own gets. */
export const DEFAULT_REQUIREMENTS: PasswordRequirements = {
  minLength: 8,
  maxLength: 64,
  requireUppercase: true,
  requireLowercase: true,
  requireNumbers: true,
  requireSymbols: true,
};
