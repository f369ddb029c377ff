import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Secure notes, as far as attachments need them: an owner to check a parent against. The notes
 * domain itself (content, endpoints) is not built yet; see docs/decisions/vault.md, "Vault: disposable identities and encrypted attachments".
 */
export const notes = sqliteTable(
  "notes",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    createdAt: text("created_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (t) => [index("notes_user").on(t.userId)],
);

export type NoteRow = typeof notes.$inferSelect;
