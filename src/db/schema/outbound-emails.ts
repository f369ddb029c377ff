import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The development/test mail transport's outbox: what the service would have sent (src/lib/mailer.ts). */
export const outboundEmails = sqliteTable(
  "outbound_emails",
  {
    id: text("id").primaryKey(),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    textBody: text("text_body").notNull(),
    /** What the mail is about (dead_man_switch.reminder, emergency.invite, ...), for tests and support. */
    kind: text("kind").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("outbound_emails_to_created").on(t.toAddress, t.createdAt)],
);

export type OutboundEmailRow = typeof outboundEmails.$inferSelect;
