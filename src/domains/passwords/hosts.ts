import { sql, type Placeholder } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../db/client";
import { clockValue } from "../../db/change-clock";
import { compile } from "../../db/compiled";
import { batchable } from "../../db/d1";

/**
 * Blind host hashes of an entry's extra addresses (table `password_hosts`): what the client sends
 * as `host_hashes` on a create, update, import or push, and how a write replaces an entry's rows.
 * The hashes are the client's keyed HMAC of each normalised host (as `domain_hash`), so the server
 * learns neither the hosts nor how many entries share one with another user.
 */
export const MAX_HOST_HASHES = 20;
const hostHash = z
  .string()
  .regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex characters (HMAC-SHA256)");
export const hostHashes = z.array(hostHash).max(MAX_HOST_HASHES);

/** The hashes a match request names: the page's host and each parent domain, hashed by the client. */
export const matchHostHashes = z
  .string()
  .max((64 + 1) * MAX_HOST_HASHES)
  .transform((s) => (s === "" ? [] : s.split(",")))
  .pipe(hostHashes);

/** An entry written in this batch and the complete set of its extra hosts' hashes. */
export type EntryHosts = { id: string; hashes: string[] };

type Value<N extends string> = string | Placeholder<N>;

/**
 * Replaces the rows of each entry in `payload` (JSON `[{id, h: [hash…]}]`) whose row this very
 * batch wrote: one stamped with the user's clock, which the batch advanced first. An entry whose
 * write did not apply (a lost race, the limit, an id another user holds) keeps what it had, so
 * the hashes can never disagree with the entry, and a deleted entry gets none.
 */
function replaceSql(userId: Value<"user">, payload: Value<"payload">) {
  const written = sql`SELECT p.id FROM passwords p WHERE p.user_id = ${userId} AND p.change_seq = ${clockValue(userId)} AND p.deleted_at IS NULL
      AND p.id IN (SELECT json_extract(value, '$.id') FROM json_each(${payload}))`;
  return {
    clear: sql`DELETE FROM password_hosts WHERE user_id = ${userId} AND password_id IN (${written})`,
    fill: sql`INSERT OR IGNORE INTO password_hosts (user_id, password_id, host_hash)
      SELECT ${userId}, json_extract(e.value, '$.id'), h.value FROM json_each(${payload}) e, json_each(e.value, '$.h') h
      WHERE json_extract(e.value, '$.id') IN (${written})`,
  };
}

const payloadOf = (entries: EntryHosts[]) =>
  JSON.stringify(entries.map((e) => ({ id: e.id, h: e.hashes })));

/** The two statements, for a drizzle batch, placed after the entry writes of the batch. */
export function replaceHostsStatements(db: Db, userId: string, entries: EntryHosts[]) {
  const q = replaceSql(userId, payloadOf(entries));
  return [batchable(db, q.clear), batchable(db, q.fill)] as const;
}

const compiled = (() => {
  const q = replaceSql(sql.placeholder("user"), sql.placeholder("payload"));
  return { clear: compile<"user" | "payload">(q.clear), fill: compile<"user" | "payload">(q.fill) };
})();

/** The same two statements compiled once, for the create path's raw batch. */
export function replaceHostsCompiled(
  d1: D1Database,
  userId: string,
  entries: EntryHosts[],
): D1PreparedStatement[] {
  const values = { user: userId, payload: payloadOf(entries) };
  return [compiled.clear.on(d1, values), compiled.fill.on(d1, values)];
}
