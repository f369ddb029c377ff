import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Account 2FA, one row per user. `enrollmentId` changes on every (re-)enrollment so a verification
 * racing a re-enrollment cannot mark a step used against the newer secret.
 */
export const twoFactor = sqliteTable("two_factor", {
  userId: text("user_id").primaryKey(),
  enrollmentId: text("enrollment_id").notNull(),
  /** The base32 secret, sealed (DECISIONS D10). */
  secretSealed: text("secret_sealed").notNull(),
  createdAt: text("created_at").notNull(),
  /** Set by the first successful verification; null while the enrollment is pending. */
  enrolledAt: text("enrolled_at"),
  /** RFC 6238 time step of the last accepted code; a code of this step or earlier is a replay. */
  lastUsedStep: integer("last_used_step"),
  failedCount: integer("failed_count").notNull().default(0),
  /** Epoch milliseconds when the current wrong-code window opened. */
  failedWindowStart: integer("failed_window_start").notNull().default(0),
  /**
   * 1 once an enrollment was confirmed, kept through a re-enrollment (the account stays under 2FA
   * while the new secret is pending) and gone with the row when 2FA is turned off (D20).
   */
  enforced: integer("enforced").notNull().default(0),
});

export type TwoFactorRow = typeof twoFactor.$inferSelect;
