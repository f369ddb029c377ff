import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const deadManSwitchLogs = sqliteTable(
  "dead_man_switch_logs",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    action: text("action").notNull(),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    timestamp: text("timestamp").notNull(),
  },
  (t) => [index("dms_logs_owner_time").on(t.ownerId, t.timestamp)],
);

export type DeadManSwitchLogRow = typeof deadManSwitchLogs.$inferSelect;
