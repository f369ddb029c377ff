import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** A connected mailbox (OAuth provider or IMAP). One per user and provider. */
export const mailIntegrations = sqliteTable(
  "mail_integrations",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    /** mailx, maily, codehost, idp or imap. */
    provider: text("provider").notNull(),
    email: text("email").notNull(),
    /** active, or disconnected after a failed refresh (the user must reconnect). */
    status: text("status").notNull().default("active"),
    /** D10: OAuth tokens or IMAP credentials, sealed with DATA_ENCRYPTION_KEY. */
    secret: text("secret").notNull(),
    /** Access-token expiry in epoch milliseconds; null for IMAP. */
    expiresAt: integer("expires_at"),
    scopes: text("scopes"),
    connectedAt: text("connected_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("mail_integrations_user_provider").on(t.userId, t.provider)],
);

export type MailIntegrationRow = typeof mailIntegrations.$inferSelect;

/** A pending OAuth authorization: the PKCE verifier waits here for the callback, used once. */
export const oauthStates = sqliteTable(
  "oauth_states",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    provider: text("provider").notNull(),
    /** D10: the PKCE code_verifier, sealed. */
    codeVerifier: text("code_verifier").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("oauth_states_expires").on(t.expiresAt)],
);
