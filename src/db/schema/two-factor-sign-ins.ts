import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Sign-ins that passed an account 2FA code (DECISIONS D20). A sign-in is the identity provider's
 * `auth_time` (with `sid` when the token has one), so a refreshed token of the same sign-in finds
 * its row and a new sign-in does not.
 */
export const twoFactorSignIns = sqliteTable(
  "two_factor_sign_ins",
  {
    userId: text("user_id").notNull(),
    signIn: text("sign_in").notNull(),
    /** Epoch seconds of the last code accepted for this sign-in: it is verified (D20) while the row lives. */
    verifiedAt: integer("verified_at").notNull(),
    /**
     * Epoch seconds of the last code that counts as a fresh sign-in for step-up (D3): one the sign-in
     * was asked for. The code that confirms an enrollment verifies the sign-in but leaves this alone,
     * or a stolen session could enrol its own second factor and make itself fresh.
     */
    freshAt: integer("fresh_at"),
  },
  (t) => [primaryKey({ columns: [t.userId, t.signIn] })],
);
