import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Mail the HTTP transport could neither send nor hand to the queue (DECISIONS D19: never dropped).
 * The scheduled job retries each row when `next_attempt_at` has come; after its last try the row
 * moves to mail_dead_letters. It keeps the whole message, which may hold an invitation token, so it
 * is never logged.
 */
export const mailRetryOutbox = sqliteTable(
  "mail_retry_outbox",
  {
    id: text("id").primaryKey(),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    textBody: text("text_body").notNull(),
    kind: text("kind").notNull(),
    /** Tries made so far, the immediate one included. */
    attempts: integer("attempts").notNull(),
    /** The last failure as "mail API answered <status>" or an error's name; never the body. */
    lastError: text("last_error").notNull(),
    nextAttemptAt: text("next_attempt_at").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("mail_retry_outbox_due").on(t.nextAttemptAt)],
);

export type MailRetryOutboxRow = typeof mailRetryOutbox.$inferSelect;
