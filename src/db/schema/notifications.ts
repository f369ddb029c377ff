import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const notifications = sqliteTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    type: text("type").notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    color: text("color").notNull().default("default"),
    icon: text("icon"),
    actionUrl: text("action_url"),
    actorId: text("actor_id"),
    actorEmail: text("actor_email"),
    actorName: text("actor_name"),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    isRead: integer("is_read", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("notifications_user_created").on(t.userId, t.createdAt)],
);

export type NotificationRow = typeof notifications.$inferSelect;
