import { sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * A browser's Web Push subscription (RFC 8030 push resource, RFC 8291 keys). The endpoint is a
 * capability URL (anyone holding it can push), so it is only read back to send, never listed.
 */
export const pushSubscriptions = sqliteTable(
  "push_subscriptions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    endpoint: text("endpoint").notNull(),
    /** The user agent's ECDH public key, base64url of the 65-byte uncompressed P-256 point. */
    p256dh: text("p256dh").notNull(),
    /** The 16-byte authentication secret, base64url (RFC 8291 section 3.2). */
    auth: text("auth").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("push_subscriptions_user_endpoint").on(t.userId, t.endpoint)],
);

export type PushSubscriptionRow = typeof pushSubscriptions.$inferSelect;
