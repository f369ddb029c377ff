import { sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * How many live (not deleted) password entries each user holds. Triggers on `passwords` keep it
 * (migration 0012), in the same statement as the write that changes the count, so the entry-limit
 * check of a create reads one row instead of counting the vault, and every writer (create, push,
 * import, restore, purge, discovery placeholders) keeps it right without knowing about it.
 */
export const vaultCounters = sqliteTable("vault_counters", {
  userId: text("user_id").primaryKey(),
  live: integer("live").notNull().default(0),
});

/** The user's live entry count as a scalar subquery: one primary-key read, whatever the vault's size. */
export const liveEntries = (userId: string) => sql<number>`coalesce((SELECT live FROM vault_counters WHERE user_id = ${userId}), 0)`;
