import { and, asc, desc, eq, isNull, sql, type Placeholder, type SQL } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import {
  entryBytes,
  liveEntries,
  passwordHosts,
  vaultBytes,
  vaultCounters,
  type NewPasswordRow,
  type PasswordRow,
} from "../../db/schema";
import { passwords } from "../../db/schema/passwords";
import { advanceClock, advanceClockCompiled, clockValue } from "../../db/change-clock";
import { announceClocks, type LiveSyncBindings } from "../../db/clock-announce";
import { compile } from "../../db/compiled";
import { batchable, rawD1, rowsChanged } from "../../db/d1";
import { replaceHostsCompiled, replaceHostsStatements } from "./hosts";

const live = (userId: string) => and(eq(passwords.userId, userId), isNull(passwords.deletedAt));

/** What one user's vault may hold: entries (MAX_PASSWORDS_PER_USER) and their ciphertext bytes (MAX_VAULT_BYTES_PER_USER). */
export type VaultLimits = { entries: number; bytes: number };

export const vaultLimits = (c: {
  MAX_PASSWORDS_PER_USER: number;
  MAX_VAULT_BYTES_PER_USER: number;
}): VaultLimits => ({
  entries: c.MAX_PASSWORDS_PER_USER,
  bytes: c.MAX_VAULT_BYTES_PER_USER,
});

/**
 * The byte guard of a write that leaves the row live with `set` applied, for an UPDATE's WHERE:
 * the vault's bytes less what the row counts now (nothing while it is deleted) plus what it will
 * count must stay within the quota. A write that does not grow the row always passes, so a vault
 * already over a lowered quota can still be edited down. Undefined when `set` leaves the
 * ciphertext alone and cannot bring the row back.
 */
export function bytesGuard(
  userId: string,
  set: Partial<NewPasswordRow>,
  maxBytes: number,
): SQL | undefined {
  if (
    set.encryptedData === undefined &&
    set.wrappedItemKey === undefined &&
    set.deletedAt === undefined
  )
    return undefined;
  const now = sql`CASE WHEN ${passwords.deletedAt} IS NULL THEN ${entryBytes(sql`${passwords.encryptedData}`, sql`${passwords.wrappedItemKey}`)} ELSE 0 END`;
  const after = entryBytes(
    set.encryptedData !== undefined ? sql`${set.encryptedData}` : sql`${passwords.encryptedData}`,
    set.wrappedItemKey !== undefined
      ? sql`${set.wrappedItemKey}`
      : sql`${passwords.wrappedItemKey}`,
  );
  return sql`(${vaultBytes(userId)} - ${now} + ${after} <= ${maxBytes} OR ${after} <= ${now})`;
}

export async function listLive(
  db: Db,
  userId: string,
  offset: number,
  limit: number,
): Promise<{ rows: PasswordRow[]; total: number }> {
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(passwords)
      .where(live(userId))
      .orderBy(desc(passwords.createdAt), desc(passwords.id))
      .limit(limit)
      .offset(offset),
    db
      .select({ n: vaultCounters.live })
      .from(vaultCounters)
      .where(eq(vaultCounters.userId, userId)),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findLive(
  db: Db,
  userId: string,
  id: string,
): Promise<PasswordRow | undefined> {
  return db
    .select()
    .from(passwords)
    .where(and(live(userId), eq(passwords.id, id)))
    .get();
}

const ph = <N extends string>(name: N) => sql.placeholder(name);

/**
 * Inserts only while the user holds fewer than `max` live entries. The check and the insert are one
 * statement, and the count it reads is kept by triggers inside that same statement, so concurrent
 * creates cannot overshoot the limit. Create is the guarded insert of a one-row payload, compiled
 * once per isolate (src/db/compiled.ts): it is a hot path, and drizzle rendered its text on every
 * request.
 */
const insertOneStatement = compile<"user" | "payload" | "count" | "maxEntries" | "maxBytes">(
  guardedInsert(ph("user"), ph("payload"), ph("count"), ph("maxEntries"), ph("maxBytes"), sql``),
);

/**
 * The clock's advance and the guarded insert (and the entry's extra host hashes, when given): one
 * batch, one transaction, one round trip, no read back.
 */
export async function insertUnderLimit(
  db: Db,
  hubs: LiveSyncBindings,
  row: PasswordRow,
  max: VaultLimits,
  hostHashes?: string[],
): Promise<boolean> {
  const d1 = rawD1(db);
  const [advanced, result] = await d1.batch([
    advanceClockCompiled.on(d1, { user: row.userId, now: Date.now() }),
    insertOneStatement.on(d1, {
      user: row.userId,
      payload: payloadOf([row]),
      count: 1,
      maxEntries: max.entries,
      maxBytes: max.bytes,
    }),
    ...(hostHashes?.length
      ? replaceHostsCompiled(d1, row.userId, [{ id: row.id, hashes: hostHashes }])
      : []),
  ]);
  const stored = rowsChanged(result!) > 0;
  if (stored) announceClocks(hubs, advanced);
  return stored;
}

/**
 * False when the entry is gone or the write would pass the byte quota (the caller tells which).
 * `hostHashes` replaces the entry's extra host hashes in the same batch, only if the write applied.
 */
export async function updateLive(
  db: Db,
  hubs: LiveSyncBindings,
  userId: string,
  id: string,
  set: Partial<NewPasswordRow>,
  maxBytes: number,
  hostHashes?: string[],
): Promise<boolean> {
  const [advanced, result] = await db.batch([
    advanceClock(db, userId),
    db
      .update(passwords)
      .set({ ...set, changeSeq: clockValue(userId) })
      .where(and(live(userId), eq(passwords.id, id), bytesGuard(userId, set, maxBytes))),
    ...(hostHashes ? replaceHostsStatements(db, userId, [{ id, hashes: hostHashes }]) : []),
  ]);
  const applied = rowsChanged(result) > 0;
  if (applied) announceClocks(hubs, advanced);
  return applied;
}

export async function softDelete(
  db: Db,
  hubs: LiveSyncBindings,
  userId: string,
  id: string,
  at: string,
): Promise<boolean> {
  const [advanced, result] = await db.batch([
    advanceClock(db, userId),
    db
      .update(passwords)
      .set({ deletedAt: at, updatedAt: at, changeSeq: clockValue(userId) })
      .where(and(live(userId), eq(passwords.id, id))),
  ]);
  const deleted = rowsChanged(result) > 0;
  if (deleted) announceClocks(hubs, advanced);
  return deleted;
}

/**
 * What the user's live entries look like as a whole, cheaply: the newest commit stamp of any of
 * their rows (every write stamps one, as delta sync needs) and the live count (which a hard delete
 * lowers). Two index reads, whatever the vault's size; the match ETag is made from it. Compiled
 * once per isolate, as is the lookup by hosts below: match is the extension's hot path.
 */
const vaultVersionStatement = compile<"user">(
  new QueryBuilder()
    .select({
      seq: sql<
        number | null
      >`(SELECT ${passwords.changeSeq} FROM ${passwords} WHERE ${passwords.userId} = ${ph("user")} ORDER BY ${passwords.changeSeq} DESC LIMIT 1)`.as(
        "seq",
      ),
      live: sql<
        number | null
      >`(SELECT ${vaultCounters.live} FROM ${vaultCounters} WHERE ${vaultCounters.userId} = ${ph("user")})`.as(
        "live",
      ),
    })
    .from(sql`(SELECT 1)`),
);

export type VaultVersion = { seq: number | null; live: number | null };

export async function vaultVersion(db: Db, userId: string): Promise<VaultVersion> {
  return (await vaultVersionStatement.on(rawD1(db), { user: userId }).first<VaultVersion>())!;
}

export type HostMatch = {
  id: string;
  name: string;
  username_hash: string | null;
  url: string | null;
  website: string | null;
  wrapped_item_key: string | null;
  encrypted_data: string | null;
};

/**
 * The user's live entries on any of these hosts, or with an extra address whose blind hash is
 * among `hashes`, at most 100: one probe of the partial `(user_id, host)` index per host, and one
 * of `password_hosts` per hash joined to its entries by id, the lists bound as JSON arrays so one
 * text serves any number of them. Two selects in a UNION, not one with an OR: SQLite plans
 * `host IN … OR id IN …` as a walk over every entry of the user (the cost bench counted 1,006 rows
 * read for a match in a vault of 1,000, docs/cost.md), and each half alone as index probes.
 */
const matchColumns = {
  id: passwords.id,
  name: passwords.name,
  username_hash: passwords.usernameHash,
  url: passwords.url,
  website: passwords.website,
  wrapped_item_key: passwords.wrappedItemKey,
  encrypted_data: passwords.encryptedData,
};
const liveOf = and(eq(passwords.userId, ph("user")), isNull(passwords.deletedAt));
const byHostsStatement = compile<"user" | "hosts" | "hashes">(
  new QueryBuilder()
    .select(matchColumns)
    .from(passwords)
    .where(and(liveOf, sql`${passwords.host} IN (SELECT value FROM json_each(${ph("hosts")}))`))
    .union(
      new QueryBuilder()
        .select(matchColumns)
        .from(passwordHosts)
        .innerJoin(passwords, eq(passwords.id, passwordHosts.passwordId))
        .where(
          and(
            eq(passwordHosts.userId, ph("user")),
            sql`${passwordHosts.hostHash} IN (SELECT value FROM json_each(${ph("hashes")}))`,
            liveOf,
          ),
        ),
    )
    .limit(100),
);

/** The version and the matching entries, read in one round trip. */
export async function versionAndHosts(
  db: Db,
  userId: string,
  hosts: string[],
  hashes: string[] = [],
): Promise<{ version: VaultVersion; rows: HostMatch[] }> {
  const d1 = rawD1(db);
  const [version, rows] = await d1.batch([
    vaultVersionStatement.on(d1, { user: userId }),
    byHostsStatement.on(d1, {
      user: userId,
      hosts: JSON.stringify(hosts),
      hashes: JSON.stringify(hashes),
    }),
  ]);
  return { version: version!.results[0] as VaultVersion, rows: rows!.results as HostMatch[] };
}

/** Rows as the one JSON parameter the guarded insert reads (D1 binds at most 100 per statement). */
export function payloadOf(rows: PasswordRow[]): string {
  return JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      name: r.name,
      website: r.website,
      url: r.url,
      tags: r.tags,
      key: r.wrappedItemKey,
      data: r.encryptedData,
      dh: r.domainHash,
      nh: r.nameHash,
      uh: r.usernameHash,
      st: r.searchTokens,
      strength: r.strength,
      host: r.host,
      at: r.createdAt,
      upd: r.updatedAt,
      pk: r.hasPasskey ? 1 : 0,
      pkl: r.passkeyLabel,
    })),
  );
}

type Value<N extends string> = string | number | Placeholder<N>;

/**
 * The rows of `payload` (version 3 entries), inserted only if all `count` of them fit under the
 * entry limit and their ciphertext under the byte quota. Stamped with the user's commit clock, so it
 * follows the clock's advance in the same batch.
 */
export function guardedInsert(
  userId: string | Placeholder<"user">,
  payload: Value<"payload">,
  count: Value<"count">,
  maxEntries: Value<"maxEntries">,
  maxBytes: Value<"maxBytes">,
  onConflict: SQL,
) {
  return sql`INSERT INTO passwords (id, user_id, name, website, url, tags, encryption_version, wrapped_item_key, encrypted_data,
      domain_hash, name_hash, username_hash, search_tokens, strength, host, created_at, updated_at, has_passkey, passkey_label, change_seq)
    SELECT json_extract(value, '$.id'), ${userId}, json_extract(value, '$.name'), json_extract(value, '$.website'),
      json_extract(value, '$.url'), json_extract(value, '$.tags'), 3, json_extract(value, '$.key'), json_extract(value, '$.data'),
      json_extract(value, '$.dh'), json_extract(value, '$.nh'), json_extract(value, '$.uh'), json_extract(value, '$.st'),
      json_extract(value, '$.strength'), json_extract(value, '$.host'), json_extract(value, '$.at'), json_extract(value, '$.upd'),
      json_extract(value, '$.pk'), json_extract(value, '$.pkl'), ${clockValue(userId)}
    FROM json_each(${payload})
    WHERE ${liveEntries(userId)} + ${count} <= ${maxEntries}
      AND ${vaultBytes(userId)} + (SELECT coalesce(sum(${entryBytes(sql`json_extract(value, '$.data')`, sql`json_extract(value, '$.key')`)}), 0) FROM json_each(${payload})) <= ${maxBytes}
    ${onConflict}`;
}

/**
 * Inserts a whole import batch in one statement, so it goes in whole or not at all: the rows travel
 * as one JSON parameter, and the statement inserts nothing unless all of them fit under the entry
 * limit and the byte quota. Must follow `advanceClock` in the same batch.
 */
export function bulkInsertStatement(
  db: Db,
  userId: string,
  rows: PasswordRow[],
  max: VaultLimits,
  opts: { skipTakenIds?: boolean } = {},
) {
  return batchable(
    db,
    guardedInsert(
      userId,
      payloadOf(rows),
      rows.length,
      max.entries,
      max.bytes,
      opts.skipTakenIds ? sql`ON CONFLICT (id) DO NOTHING` : sql``,
    ),
  );
}

/**
 * Which of these ids are taken, by anyone (ids are the table's primary key): an import that names
 * its ids skips those rather than fail its batch. Returns only ids the caller gave.
 */
export async function takenIds(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: passwords.id })
    .from(passwords)
    .where(sql`${passwords.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`)
    .all();
  return new Set(rows.map((r) => r.id));
}

/** Every live entry, oldest first, for export. */
export async function listAllLive(db: Db, userId: string): Promise<PasswordRow[]> {
  return db
    .select()
    .from(passwords)
    .where(and(eq(passwords.userId, userId), isNull(passwords.deletedAt)))
    .orderBy(asc(passwords.createdAt), asc(passwords.id))
    .all();
}

/** Every extra host hash of the user's entries, by entry id (for export). */
export async function hostHashesOf(db: Db, userId: string): Promise<Map<string, string[]>> {
  const rows = await db
    .select({ id: passwordHosts.passwordId, hash: passwordHosts.hostHash })
    .from(passwordHosts)
    .where(eq(passwordHosts.userId, userId))
    .all();
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.id, [...(out.get(r.id) ?? []), r.hash]);
  return out;
}
