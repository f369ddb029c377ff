import { index, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Blind host hashes of an entry's extra addresses (migration 0028): hex HMAC-SHA256 under the
 * owner's index key of each normalised host, as `domain_hash` is made. `match` finds an entry by
 * any of them; the hosts stay sealed in the entry. Always read and written with the owner's id;
 * triggers on `passwords` drop an entry's rows when it is deleted or changes owner.
 */
export const passwordHosts = sqliteTable(
  "password_hosts",
  {
    userId: text("user_id").notNull(),
    passwordId: text("password_id").notNull(),
    hostHash: text("host_hash").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.hostHash, t.passwordId] }),
    index("password_hosts_entry").on(t.userId, t.passwordId),
  ],
);
