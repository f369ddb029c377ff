import type { Db } from "../../db/client";
import type { LiveSyncBindings } from "../../db/clock-announce";
import type { EntryIdClaims } from "../../db/entry-ids";
import { validationError } from "../../lib/errors";
import { clockToIso } from "../../db/change-clock";
import { type VaultLimits, listAllLive } from "../passwords";
import { toChange } from "./changes";
import { push } from "./push";
import * as repo from "./repo";
import { parseResume, resumeToken } from "./resume";
import type { SyncEntry } from "./schema";

/** A user's live entries in the shape of a full sync pull, without tombstones (DECISIONS D15). */
export async function liveEntries(db: Db, userId: string): Promise<SyncEntry[]> {
  return (await listAllLive(db, userId)).map(toChange).filter((c): c is SyncEntry => !c._deleted);
}

export const CURSOR_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;
const CURSOR_MAX_FUTURE_MS = 60 * 1000;

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
   * being overwritten (./push.ts).
   */
  push(userId: string, raw: { id: string }[]) {
    const { db, limits, claims, hubs } = this;
    return push({ db, limits, claims, hubs }, userId, raw);
  }
}
