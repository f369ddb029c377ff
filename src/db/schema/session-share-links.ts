import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The directory's pointer to a live-session share (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): a viewer names a share by its token
 * and a WebSocket by its id, neither of which says whose shard holds the row, so the owner is
 * looked up here first. The share itself stays on the owner's shard.
 */
export const sessionShareLinks = sqliteTable(
  "session_share_links",
  {
    shareId: text("share_id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    ownerId: text("owner_id").notNull(),
    /** The share's own expiry: the scheduled purge drops links past the retention period by it. */
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [
    uniqueIndex("session_share_links_token").on(t.tokenHash),
    index("session_share_links_expiry").on(t.expiresAt),
  ],
);
