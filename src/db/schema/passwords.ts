import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const passwords = sqliteTable(
  "passwords",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    name: text("name").notNull(),
    website: text("website"),
    url: text("url"),
    /** Plaintext only on placeholder entries (encryption_version -1) until the client encrypts them. */
    username: text("username"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    encryptionVersion: integer("encryption_version").notNull().default(3),
    wrappedItemKey: text("wrapped_item_key"),
    encryptedData: text("encrypted_data"),
    domainHash: text("domain_hash"),
    nameHash: text("name_hash"),
    usernameHash: text("username_hash"),
    searchTokens: text("search_tokens", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    shareCount: integer("share_count").notNull().default(0),
    hasTotp: integer("has_totp", { mode: "boolean" }).notNull().default(false),
    hasPasskey: integer("has_passkey", { mode: "boolean" }).notNull().default(false),
    passkeyLabel: text("passkey_label"),
    strength: text("strength"),
    /** Normalised hostname of website/url, computed at write time for autofill matching. */
    host: text("host"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
    /**
     * Set when a deleted entry leaves the trash (purged by the person or by age): its ciphertext is
     * gone and the row is a bare sync tombstone until the cursor window passes.
     */
    purgedAt: text("purged_at"),
    /**
     * The owner's commit clock (sync_clocks.clock, epoch ms) at this row's last write: the delta
     * sync cursor. Every write to a row must set it in the same batch that advances the clock.
     */
    changeSeq: integer("change_seq").notNull().default(0),
    /** Set on a shared vault's entries, whose `user_id` is then the vault's id (docs/scale.md). */
    vaultId: text("vault_id"),
  },
  (t) => [
    index("passwords_user_created").on(t.userId, t.createdAt, t.id).where(sql`deleted_at IS NULL`),
    index("passwords_user_host").on(t.userId, t.host).where(sql`deleted_at IS NULL`),
    index("passwords_user_change_id").on(t.userId, t.changeSeq, t.id),
    index("passwords_tombstone_change").on(t.changeSeq).where(sql`deleted_at IS NOT NULL`),
    index("passwords_user_trash")
      .on(t.userId, t.deletedAt, t.id)
      .where(sql`deleted_at IS NOT NULL AND purged_at IS NULL`),
    index("passwords_trash_expiry")
      .on(t.deletedAt)
      .where(sql`deleted_at IS NOT NULL AND purged_at IS NULL`),
  ],
);

export type PasswordRow = typeof passwords.$inferSelect;
export type NewPasswordRow = typeof passwords.$inferInsert;
