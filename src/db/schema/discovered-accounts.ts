import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** A service found in the user's mailbox by account discovery. One per user and domain. */
export const discoveredAccounts = sqliteTable(
  "discovered_accounts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    domain: text("domain").notNull(),
    serviceName: text("service_name").notNull(),
    serviceIcon: text("service_icon").notNull(),
    serviceColor: text("service_color").notNull(),
    category: text("category"),
    loginUrl: text("login_url"),
    inVault: integer("in_vault", { mode: "boolean" }).notNull().default(false),
    vaultPasswordId: text("vault_password_id"),
    dismissed: integer("dismissed", { mode: "boolean" }).notNull().default(false),
    oauthLikely: integer("oauth_likely", { mode: "boolean" }).notNull().default(false),
    emailCount: integer("email_count").notNull().default(0),
    /** The mailbox address whose scan last found it. */
    sourceEmail: text("source_email"),
    lastSeenAt: text("last_seen_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("discovered_accounts_user_domain").on(t.userId, t.domain),
    index("discovered_accounts_user").on(t.userId),
  ],
);

export type DiscoveredAccountRow = typeof discoveredAccounts.$inferSelect;
