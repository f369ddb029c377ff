import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * TOTP configuration of a vault entry. Zero-trust rows hold the client's ciphertext
 * (`secretEncrypted`); legacy rows hold a server-readable secret, sealed (DECISIONS D10).
 * The SQL table keeps its first name, password_totp, so no data moves.
 */
export const entryTotp = sqliteTable(
  "password_totp",
  {
    passwordId: text("password_id").primaryKey(),
    userId: text("user_id").notNull(),
    zeroTrust: integer("zero_trust", { mode: "boolean" }).notNull(),
    secretEncrypted: text("secret_encrypted", { mode: "json" }).$type<{
      iv: string;
      ciphertext: string;
    }>(),
    secretSealed: text("secret_sealed"),
    algorithm: text("algorithm").notNull(),
    digits: integer("digits").notNull(),
    period: integer("period").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("password_totp_user").on(t.userId)],
);

export type EntryTotpRow = typeof entryTotp.$inferSelect;
