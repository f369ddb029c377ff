import { z } from "zod";
import { emailAddress } from "../../kernel/schemas";
import { NextCursor, PageQuery } from "../../kernel/pagination";
import { queryBoolean } from "../../lib/validators";

/** Any RFC 4122 layout (version and variant not checked), as identity providers mint them. */
export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const MAX_METADATA_BYTES = 16 * 1024;

/**
 * Where a notification leads: an http(s) URL, or a path on the app's own origin. Anything else
 * (javascript:, data:, protocol-relative //host) would turn a notification into a link out or a script.
 */
const ActionUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => {
    if (v.startsWith("/")) return !v.startsWith("//") && !v.startsWith("/\\");
    try {
      const u = new URL(v);
      return u.protocol === "https:" || u.protocol === "http:";
    } catch {
      return false;
    }
  }, "must be an http(s) URL or a path starting with /");

const Metadata = z
  .record(z.string(), z.unknown())
  .refine(
    (m) => new TextEncoder().encode(JSON.stringify(m)).length <= MAX_METADATA_BYTES,
    `must be at most ${MAX_METADATA_BYTES} bytes as JSON`,
  );

export const CreateNotificationBody = z.object({
  user_id: z.string().trim().min(1).max(255),
  type: z.string().trim().min(1).max(100),
  title: z.string().trim().min(1).max(500),
  body: z.string().min(1).max(5000),
  color: z.string().trim().min(1).max(50).optional(),
  icon: z.string().trim().max(200).nullable().optional(),
  action_url: ActionUrl.nullable().optional(),
  actor_id: z.string().regex(UUID, "must be a UUID").nullable().optional(),
  actor_email: emailAddress(320).nullable().optional(),
  actor_name: z.string().trim().max(200).nullable().optional(),
  metadata: Metadata.optional(),
});
export type CreateNotificationInput = z.infer<typeof CreateNotificationBody>;

export const ListNotificationsQuery = PageQuery.extend({
  unread_only: queryBoolean.optional().transform((v) => v ?? false),
});

export const Notification = z.object({
  id: z.string(),
  user_id: z.string(),
  type: z.string(),
  title: z.string(),
  body: z.string(),
  color: z.string(),
  icon: z.string().nullable(),
  action_url: z.string().nullable(),
  actor_id: z.string().nullable(),
  actor_email: z.string().nullable(),
  actor_name: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  is_read: z.boolean(),
  created_at: z.string(),
});

export const ListNotificationsResponse = z.object({
  notifications: z.array(Notification),
  unread_count: z.number().int(),
  next_cursor: NextCursor,
});
export const CreateNotificationResponse = z.object({ notification: Notification });
export const ClearNotificationsResponse = z.object({
  success: z.literal(true),
  deleted: z.number().int(),
});

export const MarkReadBody = z.object({ is_read: z.boolean() });
export const NotificationResponse = z.object({ notification: Notification });
export const MarkAllReadResponse = z.object({
  success: z.literal(true),
  updated: z.number().int(),
});
