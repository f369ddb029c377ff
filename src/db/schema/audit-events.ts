import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    action: text("action").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    ip: text("ip"),
    userAgent: text("user_agent"),
    device: text("device"),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("audit_events_user_created").on(t.userId, t.createdAt)],
);

export type AuditEventRow = typeof auditEvents.$inferSelect;
