import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const shares = sqliteTable(
  "shares",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    ownerId: text("owner_id").notNull(),
    recipientId: text("recipient_id"),
    /** Stored lower-cased: the recipient binds by a case-insensitive match of their token's email. */
    recipientEmail: text("recipient_email").notNull(),
    status: text("status", { enum: ["pending", "active", "revoked"] }).notNull(),
    permission: text("permission", { enum: ["read", "write"] }).notNull(),
    /** The item key wrapped by the owner's client for the recipient; opaque to the server. */
    wrappedVaultKeyInvite: text("wrapped_vault_key_invite"),
    inviteTokenSalt: text("invite_token_salt"),
    expiresAt: text("expires_at"),
    acceptedAt: text("accepted_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("shares_owner").on(t.ownerId, t.createdAt),
    index("shares_account").on(t.accountId),
    index("shares_recipient").on(t.recipientId),
    index("shares_recipient_email").on(t.recipientEmail),
    uniqueIndex("shares_live_unique")
      .on(t.ownerId, t.accountId, t.recipientEmail)
      .where(sql`status <> 'revoked'`),
  ],
);

export type ShareRow = typeof shares.$inferSelect;
