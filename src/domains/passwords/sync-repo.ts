import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { QueryBuilder } from "drizzle-orm/sqlite-core";
import { vaultCounters, type NewPasswordRow, type PasswordRow } from "../../db/schema";
import { passwords } from "../../db/schema/passwords";
import { catchUpClock, clockValue } from "../../db/change-clock";
import { compile } from "../../db/compiled";
import { rawD1, rowsChanged } from "../../db/d1";
import { bytesGuard } from "./repo";

/*
 * The entry store as delta sync reads and writes it: the pull's pages, the push's lookups and its
 * guarded write statements (which the sync domain puts in its own batch), the tombstone purge.
 */

/** The columns a sync change is built from. */
const syncColumns = {
  id: passwords.id,
  name: passwords.name,
  website: passwords.website,
  url: passwords.url,
  username: passwords.username,
  tags: passwords.tags,
  encryptionVersion: passwords.encryptionVersion,
  wrappedItemKey: passwords.wrappedItemKey,
  encryptedData: passwords.encryptedData,
  hasTotp: passwords.hasTotp,
  hasPasskey: passwords.hasPasskey,
  createdAt: passwords.createdAt,
  updatedAt: passwords.updatedAt,
  deletedAt: passwords.deletedAt,
};
export type SyncRow = Pick<PasswordRow, keyof typeof syncColumns>;

/**
 * One change as JSON text, built by SQLite from the stored columns in the shape of `toChange`:
 * stored JSON (tags) is embedded as it is, never parsed and serialised again in the Worker.
 */
const changeJson = sql<string>`CASE WHEN ${passwords.deletedAt} IS NOT NULL
  THEN json_object('id', ${passwords.id}, '_deleted', json('true'), 'deleted_at', ${passwords.deletedAt})
  ELSE json_object('id', ${passwords.id}, 'name', ${passwords.name}, 'website', ${passwords.website}, 'url', ${passwords.url},
    'username', CASE WHEN ${passwords.encryptionVersion} = -1 THEN ${passwords.username} END, 'tags', json(${passwords.tags}),
    'encryption_version', ${passwords.encryptionVersion}, 'wrapped_item_key', ${passwords.wrappedItemKey},
    'encrypted_data', ${passwords.encryptedData}, 'has_totp', json(CASE WHEN ${passwords.hasTotp} THEN 'true' ELSE 'false' END),
    'has_passkey', json(CASE WHEN ${passwords.hasPasskey} THEN 'true' ELSE 'false' END), 'created_at', ${passwords.createdAt},
    'updated_at', ${passwords.updatedAt}, '_deleted', json('false')) END`;

/** Where a page ended: the (change_seq, id) of its last row, after which the next page starts. */
export type PageEnd = { seq: number; id: string };

/**
 * One page of a pull as SQLite hands it over: the page's changes already joined into one JSON text
 * (`body`, null when empty), how many there are, and where the page ended. The Worker receives one
 * value per page instead of a thousand row objects.
 */
export type PullPage = { body: string | null; n: number; end: PageEnd | null; more: boolean };

/** Digits of the zero-padded change_seq in a page's end key: milliseconds since 1970 fit in 16 until the year 318857. */
const SEQ_WIDTH = 16;

/**
 * What a pull reads. `full`: every live entry. `delta`: every change after `since`. `resume`: the
 * rest of a pull cut off after `after` (see `Resume` in ./resume.ts): every row after that position,
 * live ones and the tombstones of rows changed after the cut pull's `base`.
 */
export type PullMode =
  | { kind: "full" }
  | { kind: "delta"; since: number }
  | { kind: "resume"; base: number; after: PageEnd };

/**
 * One page of a pull: the rows of `mode` committed at or before the pull's clock, after the (seq, id)
 * of the last row of the previous page. One range read of the (user_id, change_seq, id) index, in
 * its order, aggregated in SQLite: the changes by `group_concat` in (seq, id) order, and the page's
 * end as the greatest of zero-padded seq followed by id (a fixed-width number sorts as text as it
 * does as a number, and ids compare in the index's own BINARY order), so one pass finds the last
 * row. An ORDER BY inside an aggregate needs SQLite 3.44 or later.
 *
 * The six shapes (full, delta or resume; the first page, bounded by the clock the same batch just
 * set, or a later one, bounded by the value it returned) are compiled once per isolate
 * (src/db/compiled.ts).
 */
function pageStatement(kind: PullMode["kind"], first: boolean) {
  const user = sql.placeholder("user");
  const qb = new QueryBuilder();
  const rows =
    kind === "full"
      ? isNull(passwords.deletedAt)
      : kind === "delta"
        ? gt(passwords.changeSeq, sql.placeholder("since"))
        : sql`(${passwords.deletedAt} IS NULL OR ${passwords.changeSeq} > ${sql.placeholder("since")})`;
  const page = qb
    .select({ seq: passwords.changeSeq, id: passwords.id, change: changeJson.as("change") })
    .from(passwords)
    .where(
      and(
        eq(passwords.userId, user),
        rows,
        sql`${passwords.changeSeq} <= ${first ? clockValue(user) : sql.placeholder("upto")}`,
        first && kind !== "resume"
          ? undefined
          : sql`(${passwords.changeSeq}, ${passwords.id}) > (${sql.placeholder("afterSeq")}, ${sql.placeholder("afterId")})`,
      ),
    )
    .orderBy(asc(passwords.changeSeq), asc(passwords.id))
    .limit(sql.placeholder("limit"))
    .as("page");
  return compile<"user" | "since" | "upto" | "afterSeq" | "afterId" | "limit">(
    qb
      .select({
        body: sql<
          string | null
        >`group_concat(${page.change}, ',' ORDER BY ${page.seq}, ${page.id})`.as("body"),
        n: sql<number>`count(*)`.as("n"),
        last: sql<
          string | null
        >`max(printf('%0${sql.raw(String(SEQ_WIDTH))}d', ${page.seq}) || ${page.id})`.as("last"),
      })
      .from(page),
  );
}

const PAGES = {
  full: { first: pageStatement("full", true), next: pageStatement("full", false) },
  delta: { first: pageStatement("delta", true), next: pageStatement("delta", false) },
  resume: { first: pageStatement("resume", true), next: pageStatement("resume", false) },
};

type PageRow = { body: string | null; n: number; last: string | null };

/** `more`: the page is full, so rows may follow it. */
function toPage(row: PageRow | undefined, limit: number): PullPage {
  if (!row || row.n === 0 || row.last === null) return { body: null, n: 0, end: null, more: false };
  return {
    body: row.body,
    n: row.n,
    end: { seq: Number(row.last.slice(0, SEQ_WIDTH)), id: row.last.slice(SEQ_WIDTH) },
    more: row.n === limit,
  };
}

/** The statement parameters of `mode`, reading after `after` (a resumed pull's first page reads after its cut). */
function params(mode: PullMode, after: PageEnd | null) {
  const since = mode.kind === "delta" ? mode.since : mode.kind === "resume" ? mode.base : null;
  const from = after ?? (mode.kind === "resume" ? mode.after : null);
  return { since, afterSeq: from?.seq ?? null, afterId: from?.id ?? null };
}

/**
 * A pull's first page: the clock is brought up to now and returned by the same statement, and the
 * page, in the same transaction, is bounded by it, so the returned clock covers exactly the writes
 * this pull contains. Later pages (`pullPage`) keep that bound: a row written meanwhile is stamped
 * above it and comes with the next pull from this cursor.
 */
export async function pull(
  db: Db,
  userId: string,
  mode: PullMode,
  nowMs: number,
  limit: number,
): Promise<{ clock: number; page: PullPage }> {
  const d1 = rawD1(db);
  const [clock, page] = await d1.batch([
    catchUpClock.on(d1, { user: userId, now: nowMs }),
    PAGES[mode.kind].first.on(d1, { user: userId, ...params(mode, null), limit }),
  ]);
  return {
    clock: (clock.results[0] as { clock: number } | undefined)?.clock ?? nowMs,
    page: toPage(page.results[0] as PageRow | undefined, limit),
  };
}

export async function pullPage(
  db: Db,
  userId: string,
  mode: PullMode,
  clock: number,
  after: PageEnd,
  limit: number,
): Promise<PullPage> {
  const d1 = rawD1(db);
  const statement = PAGES[mode.kind].next.on(d1, {
    user: userId,
    ...params(mode, after),
    upto: clock,
    limit,
  });
  return toPage((await statement.first<PageRow>()) ?? undefined, limit);
}

/**
 * `id IN (...)` with the list as one JSON parameter: D1 binds at most 100 parameters per statement,
 * and a push names up to 100 ids besides the owner.
 */
const idIn = (ids: string[]) =>
  sql`${passwords.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/**
 * The owner as a filter on rows found by id, not as the index to search: with `user_id = ?`
 * SQLite, which cannot tell how short a json_each list is, walks the owner's whole index and
 * tests each id (every entry of the vault read for a push of one mutation, docs/cost.md); the
 * unary `+` leaves it the primary key, one probe per id.
 */
const ownedBy = (userId: string) => sql`+${passwords.userId} = ${userId}`;

/** The user's rows with these ids, live or deleted. */
export async function findMany(db: Db, userId: string, ids: string[]): Promise<PasswordRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(passwords)
    .where(and(ownedBy(userId), idIn(ids)))
    .all();
}

/**
 * The user's rows with these ids (live or deleted), and which of the other ids another user already
 * holds, in one round trip. Ids are global primary keys and clients choose them on create, so the
 * second query is the one that looks past the owner; it returns ids only, never a row.
 */
export async function lookup(
  db: Db,
  userId: string,
  ids: string[],
): Promise<{ mine: PasswordRow[]; foreign: Set<string>; liveCount: number }> {
  if (ids.length === 0) return { mine: [], foreign: new Set(), liveCount: 0 };
  const [mine, others, live] = await db.batch([
    db
      .select()
      .from(passwords)
      .where(and(ownedBy(userId), idIn(ids))),
    db
      .select({ id: passwords.id })
      .from(passwords)
      .where(and(idIn(ids), sql`${passwords.userId} <> ${userId}`)),
    db
      .select({ n: vaultCounters.live })
      .from(vaultCounters)
      .where(eq(vaultCounters.userId, userId)),
  ]);
  return { mine, foreign: new Set(others.map((r) => r.id)), liveCount: live[0]?.n ?? 0 };
}

/** The guard of an optimistic write: the row is still the version the decision was made on. */
function sameVersion(
  userId: string,
  prev: Pick<PasswordRow, "id" | "updatedAt" | "deletedAt">,
): SQL | undefined {
  return and(
    eq(passwords.userId, userId),
    eq(passwords.id, prev.id),
    eq(passwords.updatedAt, prev.updatedAt),
    prev.deletedAt === null ? isNull(passwords.deletedAt) : isNotNull(passwords.deletedAt),
  );
}

export function updateStatement(
  db: Db,
  userId: string,
  prev: PasswordRow,
  set: Partial<NewPasswordRow>,
  maxBytes: number,
) {
  return db
    .update(passwords)
    .set({ ...set, changeSeq: clockValue(userId) })
    .where(and(sameVersion(userId, prev), bytesGuard(userId, set, maxBytes)));
}

export function tombstoneStatement(
  db: Db,
  userId: string,
  prev: PasswordRow,
  deletedAt: string,
  updatedAt: string,
) {
  return db
    .update(passwords)
    .set({ deletedAt, updatedAt, changeSeq: clockValue(userId) })
    .where(sameVersion(userId, prev));
}

/**
 * Deletes, across all users, up to `limit` tombstones whose deletion was committed before
 * `beforeMs` on their owner's clock and which have left the trash (purged: no ciphertext left to
 * restore). Returns how many went.
 */
export async function purgeTombstones(db: Db, beforeMs: number, limit: number): Promise<number> {
  const victims = db
    .select({ id: passwords.id })
    .from(passwords)
    .where(
      and(
        isNotNull(passwords.deletedAt),
        isNotNull(passwords.purgedAt),
        lt(passwords.changeSeq, beforeMs),
      ),
    )
    .limit(limit);
  const result = await db.delete(passwords).where(inArray(passwords.id, victims)).run();
  return rowsChanged(result);
}
