/**
 * The `x-vault-bookmark` header (docs/decisions/scale.md, "Scale: shards, a directory, many databases", D1 read replication): the latest D1 bookmark a device has
 * seen of each database, by binding name, `DB_1=<bookmark>;DIRECTORY=<bookmark>`. Shared by the
 * worker (src/db/sessions.ts) and the web client, which sends back what it last received.
 */
export const BOOKMARK_HEADER = "x-vault-bookmark";

/** D1's bookmarks are four dash-separated hexadecimal groups, ordered lexicographically. */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32,64}$/;
const NAME = /^[A-Z][A-Z0-9_]{0,31}$/;
const MAX_NAMES = 64;

/**
 * The header's bookmarks by binding name. Malformed parts are dropped rather than refused: a
 * bookmark is a hint for freshness, and a device holding one the server no longer understands must
 * still be able to sync (it then reads as a device without one).
 */
export function parseBookmarks(header: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header || header.length > 8192) return out;
  for (const part of header.split(";").slice(0, MAX_NAMES)) {
    const eq = part.indexOf("=");
    const name = part.slice(0, eq).trim();
    const bookmark = part.slice(eq + 1).trim();
    if (eq > 0 && NAME.test(name) && BOOKMARK.test(bookmark)) out.set(name, bookmark);
  }
  return out;
}

export function formatBookmarks(bookmarks: Map<string, string>): string {
  return [...bookmarks].map(([name, bookmark]) => `${name}=${bookmark}`).join(";");
}

/** Keeps the later bookmark of each database (D1 bookmarks compare as strings). */
export function mergeBookmarks(
  older: Map<string, string>,
  newer: Map<string, string>,
): Map<string, string> {
  const out = new Map(older);
  for (const [name, bookmark] of newer)
    if (!out.has(name) || out.get(name)! < bookmark) out.set(name, bookmark);
  return out;
}
