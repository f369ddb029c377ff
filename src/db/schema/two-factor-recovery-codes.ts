import { sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Single-use recovery codes, stored as SHA-256 hashes only. */
export const twoFactorRecoveryCodes = sqliteTable(
  "two_factor_recovery_codes",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    codeHash: text("code_hash").notNull(),
    usedAt: text("used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("two_factor_recovery_user_hash").on(t.userId, t.codeHash)],
);

export type TwoFactorRecoveryCodeRow = typeof twoFactorRecoveryCodes.$inferSelect;
