import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A user's sharing public key (ECDH P-256 JWK); the private half never leaves their client. */
export const sharingKeys = sqliteTable("sharing_keys", {
  userId: text("user_id").primaryKey(),
  /** Lower-cased token email at registration, so an owner can find a recipient's key. */
  email: text("email").notNull(),
  publicKey: text("public_key").notNull(),
  /** The private half wrapped by the owner's vault key (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people"): ciphertext the server cannot open. */
  wrappedPrivateKey: text("wrapped_private_key"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export type SharingKeyRow = typeof sharingKeys.$inferSelect;
