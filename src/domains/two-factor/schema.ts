import { z } from "zod";

/** A TOTP code or a recovery code; anything else of a sane size is simply a wrong code (401). */
export const CodeBody = z.object({ code: z.string().trim().min(1).max(64) });

/** Replacing a confirmed enrollment needs a current code (TOTP or recovery); a first one has no body. */
export const EnrollBody = z.object({ code: z.string().trim().min(1).max(64).optional() });

export const EnrollResponse = z.object({
  qrCodeUri: z.string(),
  secret: z.string(),
  recoveryCodes: z.array(z.string()),
});

export const VerifyResponse = z.object({
  verified: z.literal(true),
  recoveryCodesRemaining: z.number().int().optional(),
});

export const VerifyFailure = z.object({
  error: z.string(),
  code: z.literal("UNAUTHORIZED"),
  status: z.literal(401),
  verified: z.literal(false),
  /** Present when the code was right but its time step was used already ("already_used"). */
  details: z.array(z.object({ field: z.literal("code"), message: z.string() })).optional(),
});

export const StatusResponse = z.object({
  enrolled: z.boolean(),
  method: z.literal("totp").nullable(),
  enrolledAt: z.string().nullable(),
  pending: z.boolean(),
  recoveryCodesRemaining: z.number().int(),
});

export { SuccessResponse } from "../../kernel/schemas";
