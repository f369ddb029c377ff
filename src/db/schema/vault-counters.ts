import { sql, type Placeholder, type SQL } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * How many live (not deleted) password entries each user holds, and how many bytes their
 * ciphertexts take. Triggers on `passwords` keep both (migrations 0012 and 0014), in the same
 * statement as the write that changes them, so the limit checks of a write read one row instead of
 * scanning the vault, and every writer (create, update, push, import, restore, purge, discovery
 * placeholders) keeps them right without knowing about them.
 */
export const vaultCounters = sqliteTable("vault_counters", {
  userId: text("user_id").primaryKey(),
  live: integer("live").notNull().default(0),
  /** Bytes of `encrypted_data` plus `wrapped_item_key` over the live entries (entryBytes). */
  bytes: integer("bytes").notNull().default(0),
  /** Bytes of the user's notifications (NOTIFICATION_SIZE_COLUMNS), kept by migration 0015's triggers. */
  notificationBytes: integer("notification_bytes").notNull().default(0),
  /** Bytes of the user's identities (IDENTITY_SIZE_COLUMNS), kept by migration 0015's triggers. */
  identityBytes: integer("identity_bytes").notNull().default(0),
});

/** The user's live entry count as a scalar subquery: one primary-key read, whatever the vault's size. */
export const liveEntries = (userId: string | Placeholder<"user">) =>
  sql<number>`coalesce((SELECT live FROM vault_counters WHERE user_id = ${userId}), 0)`;

/** The user's live entries' stored bytes as a scalar subquery (migration 0014's triggers keep it). */
export const vaultBytes = (userId: string | Placeholder<"user">) =>
  sql<number>`coalesce((SELECT bytes FROM vault_counters WHERE user_id = ${userId}), 0)`;

/**
 * What one entry counts against MAX_VAULT_BYTES_PER_USER: the UTF-8 bytes of its two ciphertext
 * columns, the only ones that can be large (the others are capped per entry by validation and
 * bounded by the entry limit). `data` and `key` are SQL for the two values; the triggers of
 * migration 0014 use the same expression on the stored columns.
 */
export const entryBytes = (data: SQL, key: SQL) =>
  sql<number>`(length(CAST(coalesce(${data}, '') AS BLOB)) + length(CAST(coalesce(${key}, '') AS BLOB)))`;

/** The variable-size columns of a notification, counted against MAX_NOTIFICATION_BYTES_PER_USER. */
export const NOTIFICATION_SIZE_COLUMNS = [
  "title",
  "body",
  "metadata",
  "icon",
  "action_url",
  "actor_email",
  "actor_name",
] as const;

/** Every text column of an identity a user or the generator fills, counted against MAX_IDENTITY_BYTES_PER_USER. */
export const IDENTITY_SIZE_COLUMNS = [
  "display_name",
  "first_name",
  "last_name",
  "username",
  "email_alias",
  "phone_number",
  "date_of_birth",
  "gender",
  "address_line1",
  "address_city",
  "address_state",
  "address_zip",
  "address_country",
  "label",
  "notes",
  "used_for_service",
  "alias_key_sealed",
] as const;

/** UTF-8 bytes of the named columns, each given as SQL (a column of the row or a bound value). */
export const bytesOf = (values: SQL[]) =>
  sql<number>`(${sql.join(
    values.map((v) => sql`length(CAST(coalesce(${v}, '') AS BLOB))`),
    sql` + `,
  )})`;

/** UTF-8 bytes of the values as the SQL above counts them, for a row about to be written. */
export const utf8Bytes = (values: (string | null | undefined)[]) =>
  values.reduce((n, v) => n + (v ? new TextEncoder().encode(v).length : 0), 0);
