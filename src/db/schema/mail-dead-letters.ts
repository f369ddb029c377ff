import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Mail the HTTP transport could not deliver after its last queued attempt (DECISIONS D19: never
 * dropped). The row keeps the whole message, which may hold an invitation token, so an operator can
 * resend it; it is never logged.
 */
export const mailDeadLetters = sqliteTable("mail_dead_letters", {
  id: text("id").primaryKey(),
  toAddress: text("to_address").notNull(),
  subject: text("subject").notNull(),
  textBody: text("text_body").notNull(),
  kind: text("kind").notNull(),
  attempts: integer("attempts").notNull(),
  /** The last failure as "mail API answered <status>" or a network error's name; never the body. */
  lastError: text("last_error").notNull(),
  createdAt: text("created_at").notNull(),
});

export type MailDeadLetterRow = typeof mailDeadLetters.$inferSelect;
