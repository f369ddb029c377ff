import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Read-only tokens for machines and agents (migration 0036), directory tables: a token is found by
 * its id alone, and its read log is the person's to read.
 */
export type VaultTokenRevoked = "owner" | "key_rotated" | "member_left";

export const vaultTokens = sqliteTable(
  "vault_tokens",
  {
    id: text("id").primaryKey(),
    vaultId: text("vault_id").notNull(),
    ownerId: text("owner_id").notNull(),
    name: text("name").notNull(),
    authHash: text("auth_hash").notNull(),
    keyVersion: integer("key_version").notNull(),
    wrappedKey: text("wrapped_key").notNull(),
    expiresAt: text("expires_at").notNull(),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
    revokedReason: text("revoked_reason").$type<VaultTokenRevoked>(),
  },
  (t) => [
    index("vault_tokens_owner").on(t.ownerId, t.createdAt),
    index("vault_tokens_vault").on(t.vaultId),
  ],
);
export type VaultTokenRow = typeof vaultTokens.$inferSelect;

export const vaultTokenReads = sqliteTable(
  "vault_token_reads",
  {
    id: text("id").primaryKey(),
    tokenId: text("token_id").notNull(),
    ownerId: text("owner_id").notNull(),
    vaultId: text("vault_id").notNull(),
    tokenName: text("token_name").notNull(),
    reason: text("reason"),
    entries: integer("entries").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("vault_token_reads_owner").on(t.ownerId, t.createdAt, t.id)],
);
export type VaultTokenReadRow = typeof vaultTokenReads.$inferSelect;
