import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export type RecipientStatus = "pending" | "awaiting_confirmation" | "released";

export const deadManSwitchRecipients = sqliteTable(
  "dead_man_switch_recipients",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    switchId: text("switch_id").notNull(),
    /** Bound to the recipient's account the first time they look at their transfers. */
    userId: text("user_id"),
    recipientEmail: text("recipient_email").notNull(),
    recipientName: text("recipient_name"),
    status: text("status").$type<RecipientStatus>().notNull(),
    /** The owner's recovery key wrapped client-side for this recipient; opaque to the server. */
    wrappedRecoveryKey: text("wrapped_recovery_key").notNull(),
    releasedAt: text("released_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("dms_recipients_owner_email").on(t.ownerId, t.recipientEmail),
    index("dms_recipients_email").on(t.recipientEmail),
  ],
);

export type DeadManSwitchRecipientRow = typeof deadManSwitchRecipients.$inferSelect;
