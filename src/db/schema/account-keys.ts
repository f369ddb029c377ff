import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A user's account key wrapped by their passphrase's key encryption key (docs/crypto.md, "Key
 * hierarchy"): ciphertext the server cannot open. `revision` counts the wraps written (a
 * passphrase change is the next one), so a write made from a stale read is refused.
 */
export const accountKeys = sqliteTable("account_keys", {
  userId: text("user_id").primaryKey(),
  keyVersion: integer("key_version").notNull(),
  revision: integer("revision").notNull(),
  kdfIterations: integer("kdf_iterations").notNull(),
  wrappedKey: text("wrapped_key").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export type AccountKeyRow = typeof accountKeys.$inferSelect;
