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
    /** Epoch seconds of the last code accepted for this sign-in: step-up age runs from here too (D3). */
    verifiedAt: integer("verified_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.signIn] })],
);
