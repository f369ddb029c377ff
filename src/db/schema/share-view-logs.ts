import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const shareViewLogs = sqliteTable(
  "share_view_logs",
  {
    id: text("id").primaryKey(),
    shareId: text("share_id").notNull(),
    ownerId: text("owner_id").notNull(),
    recipientId: text("recipient_id").notNull(),
    action: text("action", { enum: ["password_viewed", "password_copied"] }).notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("share_view_logs_share").on(t.shareId, t.createdAt)],
);
