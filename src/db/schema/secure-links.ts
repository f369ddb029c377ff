import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { CipherPart } from "./attachments";

/**
 * A secure link (docs/decisions/sharing.md, "Sharing: secure links (a secret or a file for anyone, the key in the link)"): the ciphertext lies in R2 under
 * `r2_key`, sealed by a key that exists only in the link's fragment. The row holds the options and
 * counters; the passphrase is checked against a hash of a verifier the browser derives, which
 * opens nothing. On the owner's shard.
 */
export const secureLinks = sqliteTable(
  "secure_links",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    kind: text("kind", { enum: ["text", "file"] }).notNull(),
    /** Bytes of the stored ciphertext (IV ‖ AES-GCM output); counts towards the byte quota until purged. */
    size: integer("size").notNull(),
    r2Key: text("r2_key").notNull(),
    /** The owner's own label for the list, encrypted by the owner's browser; opaque here. */
    encryptedLabel: text("encrypted_label", { mode: "json" }).$type<CipherPart>(),
    /** Shown to the opener; null when the owner hid it. */
    senderEmail: text("sender_email"),
    maxViews: integer("max_views").notNull(),
    viewsUsed: integer("views_used").notNull().default(0),
    expiresAt: text("expires_at").notNull(),
    passphraseSalt: text("passphrase_salt"),
    passphraseVerifierHash: text("passphrase_verifier_hash"),
    failedAttempts: integer("failed_attempts").notNull().default(0),
    /** Wrong email codes, whatever the attempt or address; the link locks at MAX_FAILED_CODES. */
    failedCodes: integer("failed_codes").notNull().default(0),
    revokedAt: text("revoked_at"),
    lastOpenedAt: text("last_opened_at"),
    /** Set once the scheduled purge (or a revoke) removed the ciphertext from R2. */
    contentPurgedAt: text("content_purged_at"),
    createdAt: text("created_at").notNull(),
    /** Keyed hashes of the addresses that may open it (null: anyone with the link). */
    recipientHashes: text("recipient_hashes", { mode: "json" }).$type<string[]>(),
    recipientCount: integer("recipient_count").notNull().default(0),
    /** The code challenge the last delivery was made under (consumed with it). */
    lastCodeId: text("last_code_id"),
  },
  (t) => [
    index("secure_links_owner").on(t.ownerId, t.createdAt),
    index("secure_links_expiry").on(t.expiresAt),
  ],
);

export type SecureLinkRow = typeof secureLinks.$inferSelect;

/** The directory's pointer from a link's public id to its owner, whose shard holds the row. */
export const secureLinkOwners = sqliteTable(
  "secure_link_owners",
  {
    linkId: text("link_id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("secure_link_owners_expiry").on(t.expiresAt)],
);

/**
 * One open attempt of a recipients-only link: a one-time code mailed to the claimed address (only
 * if it is on the list), kept as a keyed hash, expiring, with its wrong tries counted. On the
 * owner's shard, beside the link.
 */
export const secureLinkCodes = sqliteTable(
  "secure_link_codes",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    linkId: text("link_id").notNull(),
    /** The keyed hash of the code; for an address not on the list, a value no hash can equal. */
    codeHash: text("code_hash").notNull(),
    /** The recipients' keyed hash of the address asked for: it must be on the list for the code to open. */
    addressHash: text("address_hash"),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: text("expires_at").notNull(),
    consumedAt: text("consumed_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("secure_link_codes_link").on(t.linkId, t.createdAt),
    index("secure_link_codes_owner").on(t.ownerId),
    index("secure_link_codes_address").on(t.linkId, t.addressHash, t.createdAt),
  ],
);
