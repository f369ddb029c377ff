import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export type CipherPart = { iv: string; ciphertext: string };

export const attachments = sqliteTable(
  "attachments",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    parentType: text("parent_type", { enum: ["password", "note", "item"] }).notNull(),
    parentId: text("parent_id").notNull(),
    /** Bytes of the decoded content (IV + ciphertext) as stored in R2; counts towards the quota. */
    size: integer("size").notNull(),
    r2Key: text("r2_key").notNull(),
    wrappedFileKey: text("wrapped_file_key", { mode: "json" }).$type<CipherPart>().notNull(),
    encryptedFilename: text("encrypted_filename", { mode: "json" }).$type<CipherPart>().notNull(),
    encryptedMimeType: text("encrypted_mime_type", { mode: "json" }).$type<CipherPart>().notNull(),
    createdAt: text("created_at").notNull(),
    /** Set when a delete starts: the attachment is hidden at once and the delete finishes (or is retried) from there. */
    deletingAt: text("deleting_at"),
  },
  (t) => [
    index("attachments_user_parent").on(t.userId, t.parentType, t.parentId),
    index("attachments_user_deleting").on(t.userId).where(sql`deleting_at IS NOT NULL`),
  ],
);

export type AttachmentRow = typeof attachments.$inferSelect;
export type NewAttachmentRow = typeof attachments.$inferInsert;
