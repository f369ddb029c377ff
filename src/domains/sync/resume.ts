import type { PageEnd } from "./repo";

/**
 * Where a pull cut off part-way goes on from: the pull's `base` and the (change_seq, id) of the
 * last row the client received. `base` is the clock a full pull was bounded by (every row at or
 * below it that was live then came in (seq, id) order up to the position), or a delta pull's
 * `since`.
 *
 * The rule that makes a resumed pull end in every entry exactly once, at its latest version: the
 * rest is every row after the position in (seq, id) order, bounded by the new pull's clock, live
 * ones and those deleted after `base`. A row received before the cut and written since carries a
 * change_seq above the cut pull's clock, so it sorts after the position and comes again (its new
 * version, or its tombstone); a row not yet received comes once wherever it now sorts; a row
 * deleted before `base` was never sent and is not sent now. A resumed pull cut off again resumes
 * with the same `base` and its own later position, so the rule holds however often it is cut.
 * Tombstones older than the cursor window are purged, so a `base` older than it gets a full pull
 * again (DECISIONS D13), as a cursor of that age does.
 *
 * The token is opaque to clients: `<base>.<seq>.<id as base64url>`, digits in milliseconds.
 */
export type Resume = { base: number; after: PageEnd };

const TOKEN = /^(\d{1,16})\.(\d{1,16})\.([A-Za-z0-9_-]{1,200})$/;

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

export function resumeToken(base: number, after: PageEnd): string {
  return `${base}.${after.seq}.${b64url(new TextEncoder().encode(after.id))}`;
}

/** The token's parts, or null when it is not one this server made. */
export function parseResume(token: string): Resume | null {
  const m = TOKEN.exec(token);
  if (!m) return null;
  try {
    const bin = atob(m[3]!.replace(/-/g, "+").replace(/_/g, "/"));
    const id = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(bin, (ch) => ch.charCodeAt(0)),
    );
    return id ? { base: Number(m[1]), after: { seq: Number(m[2]), id } } : null;
  } catch {
    return null;
  }
}
