import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/**
 * Shared vaults (migration 0032). Directory tables: `vaults`, `vault_members`, `vault_invitations`
 * (a member on any shard finds them). Home-shard tables: `vault_key_versions`,
 * `vault_rotation_entries`, `vault_activity`, beside the vault's entries (docs/scale.md).
 */
export type VaultRole = "owner" | "manager" | "editor" | "viewer";
export const VAULT_ROLES = ["owner", "manager", "editor", "viewer"] as const;

export const vaults = sqliteTable("vaults", {
  id: text("id").primaryKey(),
  sealedName: text("sealed_name").notNull(),
  /** The committed key version as the directory last heard it from the home shard. */
  keyVersion: integer("key_version").notNull().default(1),
  createdBy: text("created_by").notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});
export type VaultRow = typeof vaults.$inferSelect;

export const vaultMembers = sqliteTable(
  "vault_members",
  {
    vaultId: text("vault_id").notNull(),
    userId: text("user_id").notNull(),
    email: text("email"),
    role: text("role").$type<VaultRole>().notNull(),
    keyVersion: integer("key_version"),
    wrappedKey: text("wrapped_key"),
    nextKeyVersion: integer("next_key_version"),
    nextWrappedKey: text("next_wrapped_key"),
    invitedBy: text("invited_by"),
    joinedAt: text("joined_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.vaultId, t.userId] }), index("vault_members_user").on(t.userId)],
);
export type VaultMemberRow = typeof vaultMembers.$inferSelect;

export const vaultInvitations = sqliteTable(
  "vault_invitations",
  {
    id: text("id").primaryKey(),
    vaultId: text("vault_id").notNull(),
    email: text("email").notNull(),
    role: text("role").$type<VaultRole>().notNull(),
    invitedBy: text("invited_by").notNull(),
    inviterEmail: text("inviter_email"),
    expiresAt: text("expires_at").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("vault_invitations_email").on(t.email, t.expiresAt),
    uniqueIndex("vault_invitations_vault_email").on(t.vaultId, t.email),
  ],
);
export type VaultInvitationRow = typeof vaultInvitations.$inferSelect;

export type KeyVersionState = "current" | "rotating" | "retired";

export const vaultKeyVersions = sqliteTable(
  "vault_key_versions",
  {
    vaultId: text("vault_id").notNull(),
    version: integer("version").notNull(),
    state: text("state").$type<KeyVersionState>().notNull(),
    startedBy: text("started_by").notNull(),
    createdAt: text("created_at").notNull(),
    committedAt: text("committed_at"),
  },
  (t) => [primaryKey({ columns: [t.vaultId, t.version] })],
);

export const vaultRotationEntries = sqliteTable(
  "vault_rotation_entries",
  {
    vaultId: text("vault_id").notNull(),
    version: integer("version").notNull(),
    entryId: text("entry_id").notNull(),
    baseSeq: integer("base_seq").notNull(),
    wrappedItemKey: text("wrapped_item_key").notNull(),
    encryptedData: text("encrypted_data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.vaultId, t.version, t.entryId] })],
);

export const vaultActivity = sqliteTable(
  "vault_activity",
  {
    id: text("id").primaryKey(),
    vaultId: text("vault_id").notNull(),
    actorId: text("actor_id").notNull(),
    action: text("action").notNull(),
    targetId: text("target_id"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("vault_activity_vault_created").on(t.vaultId, t.createdAt, t.id)],
);
export type VaultActivityRow = typeof vaultActivity.$inferSelect;
