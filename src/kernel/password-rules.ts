import { z } from "zod";

/**
 * The service registry's vocabulary that browsers share with the worker: the password rules a
 * site imposes (the extension's generator honours them; the reset automation generates within
 * them) and the registry's closed lists. The registry domain builds its admin schemas on these.
 */

export const CATEGORIES = ["big-tech", "social", "finance", "productivity", "shopping", "gaming", "developer", "email", "other"] as const;
export const LOGIN_TYPES = ["password_reset", "magic_link", "otp", "sso_only"] as const;
export const PASSKEY_SUPPORT_TYPES = ["sign-in", "sign-in-and-sign-up", "mfa-only"] as const;
export const BROWSER_TYPES = ["chromium", "stealth"] as const;

export const PasswordRequirements = z
  .object({
    minLength: z.number().int().min(1).max(128).optional(),
    maxLength: z.number().int().min(1).max(256).optional(),
    requireUppercase: z.boolean().optional(),
    requireLowercase: z.boolean().optional(),
    requireNumbers: z.boolean().optional(),
    requireSymbols: z.boolean().optional(),
    disallowedChars: z.string().max(50).optional(),
    specificSymbols: z.string().min(1).max(50).optional(),
  })
  .strict()
  .refine((r) => r.minLength === undefined || r.maxLength === undefined || r.minLength <= r.maxLength, {
    message: "minLength must not exceed maxLength",
    path: ["minLength"],
  });
export type PasswordRequirements = z.infer<typeof PasswordRequirements>;

/** What a site without rules of its own gets. */
export const DEFAULT_REQUIREMENTS: PasswordRequirements = {
  minLength: 8,
  maxLength: 64,
  requireUppercase: true,
  requireLowercase: true,
  requireNumbers: true,
  requireSymbols: true,
};
