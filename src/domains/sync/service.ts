import type { Db } from "../../db/client";
import type { EntryIdClaims } from "../../db/entry-ids";
import type { NewPasswordRow, PasswordRow } from "../../db/schema";
import { ErrorCode, validationError, zodIssues } from "../../lib/errors";
import { advanceClock, clockToIso } from "../../db/change-clock";
import { announceClocks, type LiveSyncBindings } from "../../db/clock-announce";
import {
  replaceHostsStatements,
  bulkInsertStatement,
  type VaultLimits,
  CURRENT_ENCRYPTION_VERSION,
  entryPatch,
  listAllLive,
  newEntryRow,
  PLACEHOLDER_ENCRYPTION_VERSION,
} from "../passwords";
import * as repo from "./repo";
import { parseResume, resumeToken } from "./resume";
import type { SyncRow } from "./repo";
import {
  Mutation,
  type CreateData,
  type MutationResult,
  type SyncEntry,
  type Tombstone,
  type UpdateData,
} from "./schema";

/** A user's live entries in the shape of a full sync pull, without tombstones (DECISIONS D15). */
export async function liveEntries(db: Db, userId: string): Promise<SyncEntry[]> {
  return (await listAllLive(db, userId)).map(toChange).filter((c): c is SyncEntry => !c._deleted);
}

export const CURSOR_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;
const CURSOR_MAX_FUTURE_MS = 60 * 1000;

export function toChange(row: SyncRow): SyncEntry | Tombstone {
  if (row.deletedAt !== null) return { id: row.id, _deleted: true, deleted_at: row.deletedAt };
  return {
    id: row.id,
    name: row.name,
    website: row.website,
    url: row.url,
    username: row.encryptionVersion === PLACEHOLDER_ENCRYPTION_VERSION ? row.username : null,
    tags: row.tags,
    encryption_version: row.encryptionVersion,
    wrapped_item_key: row.wrappedItemKey,
    encrypted_data: row.encryptedData,
    has_totp: row.hasTotp,
    has_passkey: row.hasPasskey,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    _deleted: false,
  };
}

/**
 * How the pull's answer is framed. `json` is the spec's one object ({changes, serverTimestamp,
 * fullSyncRequired}). `ndjson`, for a client that asks for it (Accept: application/x-ndjson), is
 * one JSON text per line: first the answer's facts ({serverTimestamp, fullSyncRequired, resumed}),
 * then one line per page ({changes, resume}: the page's changes and the token to resume after
 * them), then {complete: true}. A client parses and stores it page by page and, cut off, resumes
 * from the last page it stored; without the last line the answer is incomplete.
 */
export type PullFormat = "json" | "ndjson";
type Facts = { serverTimestamp: string; fullSyncRequired: boolean; resumed: boolean };

function framing(format: PullFormat, facts: Facts) {
  if (format === "ndjson") {
    return {
      open: `${JSON.stringify(facts)}\n`,
      page: (body: string, token: string, _first: boolean) => [
        '{"changes":[',
        body,
        `],"resume":${JSON.stringify(token)}}\n`,
      ],
      close: '{"complete":true}\n',
    };
  }
  return {
    open: '{"changes":[',
    page: (body: string, _token: string, first: boolean) => (first ? [body] : [",", body]),
    close: `],"serverTimestamp":${JSON.stringify(facts.serverTimestamp)},"fullSyncRequired":${facts.fullSyncRequired}}`,
  };
}

/**
 * What a pull reads: a resume token wins over `since`; a cursor or a resume base older than the
 * cursor window reads in full (D13); one more than a minute ahead is refused.
 */
function pullMode(
  since: string | undefined,
  resume: string | undefined,
  now: number,
): repo.PullMode {
  const fresh = (ms: number, field: string) => {
    if (ms > now + CURSOR_MAX_FUTURE_MS)
      throw validationError(`${field} is in the future`, [
        { field, message: "must not be more than a minute in the future" },
      ]);
    return ms >= now - CURSOR_MAX_AGE_MS;
  };
  if (resume !== undefined) {
    const r = parseResume(resume);
    if (!r)
      throw validationError("resume is not a token this server gave", [
        { field: "resume", message: "must be a resume token from an earlier pull" },
      ]);
    // The position's own stamp only has to be a real one: a row may rest unchanged for months.
    fresh(r.after.seq, "resume");
    return fresh(r.base, "resume")
      ? { kind: "resume", base: r.base, after: r.after }
      : { kind: "full" };
  }
  if (since === undefined) return { kind: "full" };
  const sinceMs = Date.parse(since);
  return fresh(sinceMs, "since") ? { kind: "delta", since: sinceMs } : { kind: "full" };
}

/** `prev`: the version an update was decided on, to tell a lost race from the byte quota. */
type Write = {
  index: number;
  id: string;
  statementIndex: number;
  entry?: PasswordRow;
  prev?: PasswordRow;
};

export class SyncService {
  constructor(
    private readonly db: Db,
    private readonly limits: VaultLimits,
    private readonly claims: EntryIdClaims,
    /** The live-sync hubs a committed push tells (clock-announce.ts). */
    private readonly hubs: LiveSyncBindings,
    /** How a pull is cut into reads; tests pass small pages to cross many page edges. */
    private readonly pages: repo.PageSizes = repo.PAGE_SIZES,
  ) {}

  /**
   * DECISIONS D13: a cursor older than 30 days gets the full live set; one from the future is
   * refused. `resume` goes on with a pull cut off part-way (./resume.ts); it is answered as a delta
   * (`fullSyncRequired` false) on top of what the client kept, unless its base has left the cursor
   * window, when the answer is a full pull again. Returns the response's text, or a stream of it
   * when it spans several pages, framed as `format` says (see `framing`).
   */
  async pull(
    userId: string,
    since: string | undefined,
    opts: { resume?: string; format?: PullFormat } = {},
  ): Promise<string | ReadableStream<Uint8Array>> {
    const now = Date.now();
    const mode = pullMode(since, opts.resume, now);
    const sizes = this.pages;
    const first = await repo.pull(this.db, userId, mode, now, sizes.first);
    const clock = first.clock;
    // The position a client may resume from after a page: the clock of a full pull, the cursor of a
    // delta, or the base a resumed pull carries on.
    const base = mode.kind === "full" ? clock : mode.kind === "delta" ? mode.since : mode.base;
    const frame = framing(opts.format ?? "json", {
      serverTimestamp: clockToIso(clock),
      fullSyncRequired: mode.kind === "full",
      resumed: mode.kind === "resume",
    });
    let sent = 0;
    const parts = (page: repo.PullPage): string[] =>
      page.n > 0 ? frame.page(page.body!, resumeToken(base, page.end!), sent++ === 0) : [];
    if (!first.page.more) return frame.open + parts(first.page).join("") + frame.close;
    // A large pull streams page by page, so a 100,000-entry vault is never held whole in memory:
    // each page arrives from SQLite as one JSON text and leaves as its bytes. One read runs ahead:
    // the next page is asked for as soon as the one before it has arrived, so its round trip
    // overlaps the sending of that one, and at most two pages are held at a time.
    const encoder = new TextEncoder();
    let reads = 0;
    const read = (after: repo.PullPage): Promise<repo.PullPage> => {
      const next = repo.pullPage(
        this.db,
        userId,
        mode,
        clock,
        after.end!,
        repo.nextLimit(after, sizes, reads++),
      );
      // A read whose stream was cancelled is never awaited; its failure must not go unhandled.
      next.catch(() => {});
      return next;
    };
    let ahead: Promise<repo.PullPage> | null = read(first.page);
    let head: string[] | null = [frame.open, ...parts(first.page)];
    // highWaterMark 0: a chunk is made only when the runtime asks for one.
    const source: UnderlyingSource<Uint8Array> = {
      pull: async (controller) => {
        if (head !== null) {
          for (const part of head) controller.enqueue(encoder.encode(part));
          head = null;
          return;
        }
        if (ahead) {
          const page = await ahead;
          ahead = page.more ? read(page) : null;
          // Each part its own chunk: joined to the page, a separator would make one more copy of a
          // page-sized string.
          for (const part of parts(page)) controller.enqueue(encoder.encode(part));
          if (ahead) return;
        }
        controller.enqueue(encoder.encode(frame.close));
        controller.close();
      },
      cancel: () => {
        ahead = null;
      },
    };
    return new ReadableStream(source, { highWaterMark: 0 });
  }

  /**
   * Applies up to 100 mutations in one D1 batch. Each is decided against the entry as read, and its
   * write is guarded on that version, so a concurrent writer turns it into a conflict rather than
   * being overwritten.
   */
  async push(userId: string, raw: { id: string }[]) {
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    const results: MutationResult[] = raw.map((m) => ({ id: m.id, status: "failed" }));
    const parsed: (Mutation | null)[] = raw.map((m, i) => {
      const r = Mutation.safeParse(m);
      if (r.success) return r.data;
      results[i] = {
        id: m.id,
        status: "failed",
        code: ErrorCode.VALIDATION_ERROR,
        error: "Invalid mutation",
        details: zodIssues(r.error),
      };
      return null;
    });
    const valid = parsed.filter((m): m is Mutation => m !== null);
    const ids = [...new Set(valid.map((m) => m.id))];
    // A create's id is claimed across shards while its shard is read; a retried create of one's
    // own entry finds its own claim and goes on as before.
    const [{ mine, foreign, liveCount }, claimed] = await Promise.all([
      repo.lookup(this.db, userId, ids),
      this.claims.claim(
        userId,
        valid.filter((m) => m.action === "create").map((m) => m.id),
      ),
    ]);
    for (const id of claimed.taken) foreign.add(id);
    const current = new Map(mine.map((r) => [r.id, r]));
    // New entries go in as one statement, guarded once on the entry limit; creates beyond the room
    // left at read time fail at once (the guard still holds if the vault filled up meanwhile).
    const room = this.limits.entries - liveCount;
    const bulkRows: { index: number; row: PasswordRow }[] = [];
    let bulkSlot = -1;
    let restores = 0;

    const statements: unknown[] = [advanceClock(this.db, userId, now)];
    const writes: Write[] = [];
    const fail = (i: number, id: string, code: ErrorCode, error: string) =>
      (results[i] = { id, status: "failed", code, error });

    parsed.forEach((m, i) => {
      if (!m) return;
      const prev = current.get(m.id);
      const clientMs = Date.parse(m.clientUpdatedAt);
      // A client clock running ahead must not make its write unbeatable.
      const stamp = new Date(Math.min(clientMs, now)).toISOString();
      if (!prev) {
        if (m.action !== "create")
          return fail(i, m.id, ErrorCode.NOT_FOUND, "Password entry not found");
        if (foreign.has(m.id))
          return fail(
            i,
            m.id,
            ErrorCode.CONFLICT,
            "This id is not available; create the entry under a new id",
          );
        if (bulkRows.length >= room)
          return fail(i, m.id, ErrorCode.SERVICE_UNAVAILABLE, "Password limit exceeded");
        const row = newRow(userId, m.id, m.data, nowIso, stamp);
        current.set(m.id, row);
        if (bulkSlot < 0) bulkSlot = statements.push(null) - 1;
        bulkRows.push({ index: i, row });
        return;
      }
      if (
        m.action === "create" &&
        prev.encryptedData === m.data.encrypted_data &&
        prev.wrappedItemKey === m.data.wrapped_item_key &&
        prev.deletedAt === null
      ) {
        // A retried create whose first answer was lost: same envelope, nothing to do.
        results[i] = { id: m.id, status: "applied", serverEntry: toChange(prev) };
        return;
      }
      if (m.action === "delete" && prev.deletedAt !== null) {
        results[i] = { id: m.id, status: "applied" };
        return;
      }
      // Last write wins; the server wins a tie (spec, "Password sync" rule 3).
      if (Date.parse(prev.updatedAt) >= clientMs) {
        results[i] = { id: m.id, status: "conflict_server_wins", serverEntry: toChange(prev) };
        return;
      }
      if (m.action === "delete") {
        statements.push(repo.tombstoneStatement(this.db, userId, prev, nowIso, stamp));
        writes.push({ index: i, id: m.id, statementIndex: statements.length - 1 });
        current.set(m.id, { ...prev, deletedAt: nowIso, updatedAt: stamp });
        return;
      }
      // An update of a deleted entry brings it back, so it takes a place under the entry limit.
      if (prev.deletedAt !== null) {
        if (bulkRows.length + restores >= room)
          return fail(i, m.id, ErrorCode.SERVICE_UNAVAILABLE, "Password limit exceeded");
        restores++;
      }
      const set = changeSet(m.data, prev, stamp);
      if ("error" in set) {
        results[i] = {
          id: m.id,
          status: "failed",
          code: ErrorCode.VALIDATION_ERROR,
          error: set.error,
          details: set.details,
        };
        return;
      }
      statements.push(repo.updateStatement(this.db, userId, prev, set, this.limits.bytes));
      const next = { ...prev, ...set } as PasswordRow;
      writes.push({
        index: i,
        id: m.id,
        statementIndex: statements.length - 1,
        entry: m.action === "create" ? next : undefined,
        prev,
      });
      current.set(m.id, next);
    });

    if (bulkSlot >= 0) {
      statements[bulkSlot] = bulkInsertStatement(
        this.db,
        userId,
        bulkRows.map((b) => b.row),
        this.limits,
        { skipTakenIds: true },
      );
    }
    // Extra host hashes after every entry write: only entries this batch wrote take them (the last
    // mutation of an id that sends them wins), in the same transaction as the entry.
    const hosts = new Map<string, string[]>();
    for (const m of parsed)
      if (m && m.action !== "delete" && m.data.host_hashes) hosts.set(m.id, m.data.host_hashes);
    if (hosts.size > 0)
      statements.push(
        ...replaceHostsStatements(
          this.db,
          userId,
          [...hosts].map(([id, hashes]) => ({ id, hashes })),
        ),
      );
    statements.push(repo.readClock(this.db, userId));
    const out = (await this.db.batch(
      statements as unknown as Parameters<Db["batch"]>[0],
    )) as unknown as unknown[];
    announceClocks(this.hubs, out[0]);
    const clock = (out[out.length - 1] as { clock: number }[])[0]?.clock ?? now;

    if (bulkSlot >= 0) {
      const inserted = (out[bulkSlot] as { meta?: { changes?: number } }).meta?.changes ?? 0;
      if (inserted === bulkRows.length) {
        for (const b of bulkRows)
          results[b.index] = { id: b.row.id, status: "applied", serverEntry: toChange(b.row) };
      } else {
        // Someone took an id (or filled the vault) between the read and the write: check row by row.
        const stored = new Map(
          (
            await repo.lookup(
              this.db,
              userId,
              bulkRows.map((b) => b.row.id),
            )
          ).mine.map((r) => [r.id, r]),
        );
        for (const b of bulkRows) {
          const row = stored.get(b.row.id);
          if (row && row.encryptedData === b.row.encryptedData)
            results[b.index] = { id: b.row.id, status: "applied", serverEntry: toChange(row) };
          else if (row)
            results[b.index] = {
              id: b.row.id,
              status: "conflict_server_wins",
              serverEntry: toChange(row),
            };
          else if (inserted === 0)
            fail(b.index, b.row.id, ErrorCode.SERVICE_UNAVAILABLE, "Password limit exceeded");
          else
            fail(
              b.index,
              b.row.id,
              ErrorCode.CONFLICT,
              "This id is not available; create the entry under a new id",
            );
        }
      }
    }
    const lost: Write[] = [];
    for (const w of writes) {
      const changes = (out[w.statementIndex] as { meta?: { changes?: number } }).meta?.changes ?? 0;
      if (changes > 0)
        results[w.index] = {
          id: w.id,
          status: "applied",
          ...(w.entry ? { serverEntry: toChange(w.entry) } : {}),
        };
      else lost.push(w);
    }
    if (lost.length > 0) {
      // A concurrent writer got there first: report what is stored now.
      const fresh = new Map(
        (
          await repo.findMany(
            this.db,
            userId,
            lost.map((w) => w.id),
          )
        ).map((r) => [r.id, r]),
      );
      for (const w of lost) {
        const row = fresh.get(w.id);
        // Still the version it was decided on: nobody else wrote, the byte quota refused it.
        if (
          row &&
          w.prev &&
          row.updatedAt === w.prev.updatedAt &&
          row.deletedAt === w.prev.deletedAt
        ) {
          fail(w.index, w.id, ErrorCode.SERVICE_UNAVAILABLE, "Vault storage quota exceeded");
        } else if (row)
          results[w.index] = {
            id: w.id,
            status: "conflict_server_wins",
            serverEntry: toChange(row),
          };
        else fail(w.index, w.id, ErrorCode.NOT_FOUND, "Password entry not found");
      }
    }
    return { results, serverTimestamp: clockToIso(clock) };
  }
}

function newRow(
  userId: string,
  id: string,
  d: CreateData,
  createdAt: string,
  updatedAt: string,
): PasswordRow {
  return newEntryRow(userId, id, d, createdAt, updatedAt);
}

/**
 * The columns an update (or a create over an existing id) writes. The result is always a live V3
 * entry: a deleted one comes back (its later edit wins), and a placeholder or legacy entry needs a
 * complete envelope, after which its plaintext username goes (D14).
 */
function changeSet(
  d: UpdateData | CreateData,
  prev: PasswordRow,
  stamp: string,
): Partial<NewPasswordRow> | { error: string; details: { field: string; message: string }[] } {
  if (
    prev.encryptionVersion !== CURRENT_ENCRYPTION_VERSION &&
    (!d.wrapped_item_key || !d.encrypted_data)
  ) {
    return {
      error:
        "Sync push accepts V3 entries only: send wrapped_item_key and encrypted_data to upgrade this entry",
      details: [
        { field: "data.encrypted_data", message: "required for an entry that is not yet V3" },
      ],
    };
  }
  const set = entryPatch(d, prev, {
    updatedAt: stamp,
    deletedAt: null,
    encryptionVersion: CURRENT_ENCRYPTION_VERSION,
    username: null,
  });
  return set;
}
