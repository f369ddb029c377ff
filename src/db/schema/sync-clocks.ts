import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One strictly increasing commit clock per user (epoch milliseconds). Every write to the user's
 * password entries advances it in the same D1 batch, and every sync pull reads it in the same batch
 * as the changes, so a cursor taken from it can never skip a write (see docs/decisions/sync.md, "Sync: delta sync, import, export").
 */
export const syncClocks = sqliteTable("sync_clocks", {
  userId: text("user_id").primaryKey(),
  clock: integer("clock").notNull(),
});
