/**
 * The live-sync wire protocol, shared by the hub (durable-objects/live-sync-hub.ts), the worker
 * route and both clients. A hub tells a device only that the owner's change clock moved, and to
 * which value: never an entry, a name or a count of changes.
 */

/** The WebSocket subprotocol the hub speaks (RFC 6455 section 1.9), echoed on the upgrade. */
export const LIVE_SYNC_PROTOCOL = "vault-live";

/**
 * A client that cannot send cookies or an Authorization header on a WebSocket handshake (the
 * browser's WebSocket has no header option) offers its bearer token as a second subprotocol,
 * `vault-bearer.<jwt>`: a JWT's characters are all RFC 7230 token characters, and a header keeps
 * the token out of URLs and their logs.
 */
export const LIVE_SYNC_BEARER_PREFIX = "vault-bearer.";

/** Kept alive by the runtime without waking the hub (an auto-response): a client's keepalive. */
export const LIVE_SYNC_PING = "ping";
export const LIVE_SYNC_PONG = "pong";

/**
 * Server to client. `hello` on connect, with the hub's last clock (null when it has seen no write
 * since it was made); `changed` when a write committed; clocks are the change clock as ISO 8601,
 * the same form as a pull's `serverTimestamp`, so a device compares it with its cursor.
 */
export type LiveSyncMessage =
  | { type: "hello"; clock: string | null }
  | { type: "changed"; clock: string }
  | { type: "topic"; topic: LiveSyncTopic };

/**
 * What a delta pull does not carry and a device reads through its own routes: the shares the user
 * owns or received, the emergency-access records on either side, and the shared vaults (membership,
 * keys, and any change to a vault's entries, which live on the vault's own clock). A `topic` notice says only
 * that one of these changed for this user (no share, no record, no count): the device refreshes
 * that section.
 */
export const LIVE_SYNC_TOPICS = ["shares", "emergency", "vaults"] as const;
export type LiveSyncTopic = (typeof LIVE_SYNC_TOPICS)[number];
export const isLiveSyncTopic = (t: unknown): t is LiveSyncTopic =>
  (LIVE_SYNC_TOPICS as readonly unknown[]).includes(t);

/** Close codes (RFC 6455 section 7.4.2, the 4000–4999 private range). */
export const LIVE_SYNC_CLOSE = {
  /** The access token the connection was opened with has expired: reconnect with a fresh one. */
  TOKEN_EXPIRED: 4001,
} as const;

/** Parses a hub message; anything else is null (a client ignores what it does not know). */
export function parseLiveSyncMessage(text: unknown): LiveSyncMessage | null {
  if (typeof text !== "string" || text === LIVE_SYNC_PONG) return null;
  try {
    const m = JSON.parse(text) as Partial<LiveSyncMessage>;
    if (m.type === "hello" && (m.clock === null || typeof m.clock === "string"))
      return { type: "hello", clock: m.clock };
    if (m.type === "changed" && typeof m.clock === "string")
      return { type: "changed", clock: m.clock };
    if (m.type === "topic" && isLiveSyncTopic(m.topic)) return { type: "topic", topic: m.topic };
  } catch {
    /* not ours */
  }
  return null;
}

/** True when a cursor (a pull's serverTimestamp) already covers every write up to `clock`. */
export function cursorCovers(cursor: string | undefined | null, clock: string | null): boolean {
  if (clock === null) return true;
  if (!cursor) return false;
  return Date.parse(cursor) >= Date.parse(clock);
}
