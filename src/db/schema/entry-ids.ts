import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Who holds each entry id, kept in the directory database once users live on more than one shard
 * (src/db/entry-ids.ts). A shard's primary key sees only its own users, and an id is the client's
 * choice (sync push, import), so without this table another user on another shard could take an
 * id that is already someone's. One database needs none of it: the primary key of `passwords`
 * already answers.
 */
export const entryIds = sqliteTable("entry_ids", {
  id: text("id").primaryKey(),
  ownerId: text("owner_id").notNull(),
});
