import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The user → shard map (docs/decisions/scale.md, "Scale: shards, a directory, many databases"), kept in the directory database. A row is written on the user's
 * first write and changed only by the shard move command (scripts/shards.mjs), so a user's data is
 * found where the map says even after shards are added and the hash would now choose another.
 */
export const userShards = sqliteTable("user_shards", {
  userId: text("user_id").primaryKey(),
  /** The binding name of the shard: `DB_0` … `DB_{n-1}` (or `DB` for a one-database deployment). */
  shard: text("shard").notNull(),
  /** Set while a move copies the user to this shard: the user's writes wait (src/db/shard-move.ts). */
  movingTo: text("moving_to"),
  /** The shard a finished move still has to delete the user's rows from. */
  cleanupFrom: text("cleanup_from"),
  createdAt: text("created_at").notNull(),
});

export type UserShardRow = typeof userShards.$inferSelect;
