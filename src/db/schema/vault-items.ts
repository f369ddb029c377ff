import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Generic vault items, as far as attachments need them: an owner to check a parent against. The
 * items domain itself is not built yet; see docs/decisions/vault.md, "Vault: disposable identities and encrypted attachments".
 */
export const vaultItems = sqliteTable(
  "vault_items",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    createdAt: text("created_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (t) => [index("vault_items_user").on(t.userId)],
);

export type VaultItemRow = typeof vaultItems.$inferSelect;
