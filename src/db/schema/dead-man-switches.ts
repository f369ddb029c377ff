import { sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export type SwitchStatus = "idle" | "warning" | "triggered" | "disabled";

export const deadManSwitches = sqliteTable("dead_man_switches", {
  id: text("id").primaryKey(),
  /** One switch per user. */
  userId: text("user_id").notNull().unique(),
  /** Where email reminders go: the owner's address from their last switch update. */
  ownerEmail: text("owner_email"),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  inactivityDays: integer("inactivity_days").notNull(),
  notifyAtDays: text("notify_at_days", { mode: "json" }).$type<number[]>().notNull(),
  notifyVia: text("notify_via", { mode: "json" }).$type<string[]>().notNull(),
  confirmationRequired: integer("confirmation_required", { mode: "boolean" }).notNull(),
  /** PBKDF2 hash of the phrase recipients must give to claim their key; never returned. */
  secretPhraseHash: text("secret_phrase_hash"),
  lastCheckIn: text("last_check_in").notNull(),
  nextTriggerAt: text("next_trigger_at"),
  status: text("status").$type<SwitchStatus>().notNull(),
  /** Reminder days (from notify_at_days) already sent in the current inactivity period. */
  remindersSent: text("reminders_sent", { mode: "json" })
    .$type<number[]>()
    .notNull()
    .default(sql`'[]'`),
  triggeredAt: text("triggered_at"),
  /** With confirmation_required: when the held transfers are released unless the owner shows up. */
  releaseAt: text("release_at"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export type DeadManSwitchRow = typeof deadManSwitches.$inferSelect;
