import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Which database this is: one row, a random id written on first use (src/domains/backup). Two
 * bindings reading the same id are one database (DB_0 and DIRECTORY on a one-database
 * deployment), so a backup copies it once. Not part of any backup: each database keeps its own.
 */
export const databaseIdentity = sqliteTable("database_identity", {
  singleton: integer("singleton").primaryKey(),
  id: text("id").notNull(),
});
