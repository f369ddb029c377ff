import { z } from "zod";
import { emailAddress } from "../../kernel/schemas";
import { base64String } from "../../lib/validators";

export const MIN_INACTIVITY_DAYS = 7;
export const MAX_INACTIVITY_DAYS = 365;
/** The channels a reminder goes through; only these are ever stored (SwitchBody checks them). */
const NotifyChannel = z.enum(["email", "push"]);

export const SwitchBody = z
  .object({
    enabled: z.boolean(),
    inactivity_days: z.number().int().min(MIN_INACTIVITY_DAYS).max(MAX_INACTIVITY_DAYS),
    notify_at_days: z
      .array(
        z
          .number()
          .int()
          .min(1)
          .max(MAX_INACTIVITY_DAYS - 1),
      )
      .max(10)
      .refine((a) => new Set(a).size === a.length, "must not repeat a day"),
    notify_via: z
      .array(NotifyChannel)
      .min(1)
      .max(2)
      .refine((a) => new Set(a).size === a.length, "must not repeat a channel"),
    confirmation_required: z.boolean(),
    secret_phrase: z.string().min(1).max(256).nullable(),
  })
  .partial();
export type SwitchInput = z.output<typeof SwitchBody>;

export const RecipientBody = z.object({
  recipient_email: emailAddress(254),
  recipient_name: z.string().trim().min(1).max(200).optional(),
  wrapped_recovery_key: base64String.min(16).max(16_384),
});
export type RecipientInput = z.output<typeof RecipientBody>;

export const ClaimBody = z.object({ secret_phrase: z.string().min(1).max(256).optional() });

export const SwitchShape = z.object({
  id: z.string(),
  user_id: z.string(),
  enabled: z.boolean(),
  inactivity_days: z.number().int(),
  notify_at_days: z.array(z.number().int()),
  notify_via: z.array(NotifyChannel),
  last_check_in: z.string(),
  next_trigger_at: z.string().nullable(),
  status: z.enum(["idle", "warning", "triggered", "disabled"]),
  confirmation_required: z.boolean(),
  secret_phrase: z.null(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const RecipientShape = z.object({
  id: z.string(),
  user_id: z.string().nullable(),
  recipient_email: z.string(),
  recipient_name: z.string().nullable(),
  status: z.enum(["pending", "awaiting_confirmation", "released"]),
  wrapped_recovery_key: z.string(),
  created_at: z.string(),
});

export const LogShape = z.object({
  action: z.string(),
  timestamp: z.string(),
  details: z.record(z.string(), z.unknown()),
});

export const StatusResponse = z.object({
  switch: SwitchShape.nullable(),
  recipients: z.array(RecipientShape),
  recent_logs: z.array(LogShape),
  days_remaining: z.number().int().nullable(),
  is_warning: z.boolean(),
});

export const SaveResponse = z.object({ success: z.literal(true), switch: SwitchShape });
export { SuccessResponse } from "../../kernel/schemas";
export const CheckInResponse = z.object({
  success: z.literal(true),
  next_trigger_at: z.string(),
  days_until_trigger: z.number().int(),
});
export const RecipientResponse = z.object({ recipient: RecipientShape });

export const TransferShape = z.object({
  id: z.string(),
  owner_id: z.string(),
  recipient_email: z.string(),
  recipient_name: z.string().nullable(),
  status: z.enum(["pending", "awaiting_confirmation", "released"]),
  released_at: z.string().nullable(),
  requires_secret_phrase: z.boolean(),
});
export const TransfersResponse = z.object({ transfers: z.array(TransferShape) });
export const ClaimResponse = z.object({
  wrapped_recovery_key: z.string(),
  owner_id: z.string(),
  released_at: z.string(),
});
