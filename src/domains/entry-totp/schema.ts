import { z } from "zod";
import { normalizeAlgorithm } from "../../kernel/totp";
import { base64String } from "../../lib/validators";

export const Algorithm = z
  .string()
  .trim()
  .max(16)
  .refine((v) => normalizeAlgorithm(v) !== null, "must be SHA-1, SHA-256 or SHA-512");
/** RFC 4226 section 5.3 codes have 6 to 8 digits. */
export const Digits = z.number().int().min(6).max(8);
export const Period = z.number().int().min(5).max(300);

export const SecretEncrypted = z.object({
  iv: base64String.min(1).max(64),
  ciphertext: base64String.min(1).max(4096),
});

export const SetTotpBody = z.object({
  secretEncrypted: SecretEncrypted,
  algorithm: Algorithm.default("SHA-1"),
  digits: Digits.default(6),
  period: Period.default(30),
});
export type SetTotpInput = z.infer<typeof SetTotpBody>;

export const TotpConfigResponse = z.object({
  hasTotp: z.boolean(),
  zeroTrust: z.boolean().optional(),
  secretEncrypted: SecretEncrypted.optional(),
  algorithm: z.string().optional(),
  digits: z.number().int().optional(),
  period: z.number().int().optional(),
});

export const CodeResponse = z.object({ code: z.string(), remaining: z.number().int() });
export { SuccessResponse } from "../../kernel/schemas";
