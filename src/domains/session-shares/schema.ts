import { z } from "zod";
import { isoTimestamp } from "../../lib/validators";

const MAX_SCHEDULE_AHEAD_MS = 7 * 24 * 60 * 60 * 1000;

export const CreateSessionShareBody = z
  .object({
    accountId: z.string().min(1).max(128),
    /** Needed by the automated login only: a manual share's owner signs in through the live view. */
    decryptedUsername: z.string().min(1).max(1024).optional(),
    decryptedPassword: z.string().min(1).max(1024).optional(),
    accessType: z.enum(["full", "view_only"]).optional(),
    durationMinutes: z.number().int().min(1).max(240).default(15),
    maxViewers: z.number().int().min(1).max(10).default(1),
    loginMethod: z.enum(["ai_agent", "manual"]).default("ai_agent"),
    viewOnly: z.boolean().optional(),
    watermarkEnabled: z.boolean().default(true),
    scheduledStart: isoTimestamp
      .refine((v) => {
        const ahead = Date.parse(v) - Date.now();
        return ahead > 0 && ahead <= MAX_SCHEDULE_AHEAD_MS;
      }, "must be in the future and within 7 days")
      .optional(),
  })
  .refine((b) => !(b.viewOnly === true && b.accessType === "full"), {
    message: "viewOnly contradicts accessType full",
    path: ["viewOnly"],
  })
  .refine((b) => b.loginMethod !== "ai_agent" || b.decryptedUsername !== undefined, {
    message: "required for an automated login",
    path: ["decryptedUsername"],
  })
  .refine((b) => b.loginMethod !== "ai_agent" || b.decryptedPassword !== undefined, {
    message: "required for an automated login",
    path: ["decryptedPassword"],
  });
export type CreateSessionShareInput = z.infer<typeof CreateSessionShareBody>;

export const PatchSessionShareBody = z.discriminatedUnion("action", [
  z.object({ action: z.literal("pause") }),
  z.object({ action: z.literal("resume") }),
  z.object({ action: z.literal("revoke") }),
  z.object({ action: z.literal("extend"), minutes: z.number().int().min(1).max(240) }),
  z.object({ action: z.literal("watermark"), watermarkEnabled: z.boolean() }),
]);
export type PatchSessionShareInput = z.infer<typeof PatchSessionShareBody>;

export const TokenParam = z.object({
  token: z
    .string()
    .min(20)
    .max(128)
    .regex(/^[A-Za-z0-9_-]+$/),
});
export const TicketQuery = z.object({ ticket: z.string().min(20).max(128) });

export const CreateSessionShareResponse = z.object({
  id: z.string(),
  shareToken: z.string(),
  shareUrl: z.string(),
  status: z.string(),
  estimatedCostCents: z.number().int(),
  expiresAt: z.string(),
  serviceName: z.string(),
  loginMethod: z.enum(["ai_agent", "manual"]),
});

export const SessionView = z.object({
  id: z.string(),
  status: z.string(),
  serviceName: z.string(),
  loginMethod: z.string(),
  accessType: z.string(),
  maxViewers: z.number().int(),
  currentViewers: z.number().int(),
  watermarkEnabled: z.boolean(),
  durationMinutes: z.number().int(),
  estimatedCostCents: z.number().int(),
  scheduledStart: z.string().nullable(),
  expiresAt: z.string(),
  endedAt: z.string().nullable(),
  /** Why a failed share ended, in words the owner can act on; null otherwise. */
  failureReason: z.string().nullable(),
  createdAt: z.string(),
});
export type SessionView = z.infer<typeof SessionView>;

export const SessionResponse = z.object({ success: z.literal(true), session: SessionView });
export { SuccessResponse } from "../../kernel/schemas";
export const TicketResponse = z.object({
  ticket: z.string(),
  wsUrl: z.string(),
  accessType: z.string(),
  expiresIn: z.number().int(),
});
