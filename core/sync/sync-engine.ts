/**
 * Offline-first sync (spec "Client offline behaviour" rules 4 and 5). The core (push, pull,
 * syncOnce) runs in pages and in the service worker; SyncEngine adds the page's schedule through a
 * small host interface, so this module needs no DOM.
 */
import {
  ApiError,
  OfflineError,
  type ApiClient,
  type SyncChange,
  type SyncEntry,
  type SyncPullResponse,
  type WireMutation,
} from "../api";
import type { LocalDb, LocalEntry, PendingMutation, PulledChange } from "../store";
import { jsonLines } from "./ndjson";
import { PageWriter } from "./page-writer";
import {
  fetchPullInWorker,
  pullInWorker,
  warmPullWorker,
  type PageListener,
  type PullReport,
} from "./pull-worker-client";

export const SYNC_PERIOD_MS = 30_000;
/** Placeholder entries (spec: encryption_version -1) that the client must still encrypt. */
export const PLACEHOLDER_VERSION = -1;
/** After a network failure while the browser reports a connection (it often does for a moment after reconnecting). */
export const RETRY_MS = 2_000;
/**
 * Mutations per push. The server takes up to 100 (spec "Limits"), but a push costs about seven
 * D1 statements plus one per mutation (docs/cost.md: 57 for 50), and Cloudflare's free plan allows
 * 50 queries per Worker invocation: 40 keeps every push inside it with room to spare.
 */
export const MAX_BATCH = 40;
/**
 * A page that starts within this long of a pull by any tab of this browser (the store is shared)
 * does not pull again at once: live sync's first clock, or the next period, pulls if the server
 * moved meanwhile. A person opening pages in two tabs otherwise sent a pull per page.
 */
export const RECENT_PULL_MS = 15_000;
/** A 429 without a readable Retry-After waits this long before the next run. */
export const RATE_LIMITED_WAIT_MS = 30_000;
/** Serialises pushes between tabs and the service worker (Web Locks exist in both). */
const LOCK = "vault-sync";

export function toLocal(userId: string, e: SyncEntry): LocalEntry {
  return {
    userId,
    id: e.id,
    name: e.name,
    website: e.website,
    url: e.url,
    tags: e.tags,
    encryption_version: e.encryption_version,
    wrapped_item_key: e.wrapped_item_key,
    encrypted_data: e.encrypted_data,
    created_at: e.created_at,
    updated_at: e.updated_at,
    search_tokens: null,
    ...(e.has_passkey ? { has_passkey: true } : {}),
    ...(e.encryption_version === PLACEHOLDER_VERSION ? { username: e.username ?? null } : {}),
  };
}

const serverVersion = (userId: string, c: SyncChange | undefined) =>
  c === undefined ? undefined : c._deleted ? ({ tombstone: true } as const) : toLocal(userId, c);

function wire(p: PendingMutation): WireMutation {
  if (p.action === "delete")
    return { action: "delete", id: p.entryId, clientUpdatedAt: p.clientUpdatedAt };
  return { action: p.action, id: p.entryId, data: p.data!, clientUpdatedAt: p.clientUpdatedAt };
}

export type PushReport = { sent: number; applied: number; conflicts: number; failed: number };

/**
 * Sends the queue in batches of at most 100 (one batch for any ordinary queue). Applied and
 * conflict_server_wins leave the queue; on a conflict the local entry takes serverEntry. Failed
 * mutations stay queued with their error, except a delete of an entry the server no longer has.
 */
export async function pushPending(
  db: LocalDb,
  api: ApiClient,
  userId: string,
): Promise<PushReport> {
  const report: PushReport = { sent: 0, applied: 0, conflicts: 0, failed: 0 };
  const queue = await db.pending(userId);
  for (let i = 0; i < queue.length; i += MAX_BATCH) {
    const batch = queue.slice(i, i + MAX_BATCH);
    const { results } = await api.syncPush(batch.map(wire));
    report.sent += batch.length;
    for (const [n, r] of results.entries()) {
      const m = batch[n];
      if (!m || r.id !== m.entryId) continue;
      if (r.status === "applied") {
        report.applied++;
        const server = serverVersion(userId, r.serverEntry);
        // Keep the locally computed search tokens: an applied create stored exactly what we sent.
        const local =
          server && !("tombstone" in server) ? await db.entry(userId, m.entryId) : undefined;
        await db.settle(
          m,
          server &&
            local &&
            !("tombstone" in server) &&
            local.encrypted_data === server.encrypted_data &&
            local.wrapped_item_key === server.wrapped_item_key
            ? { ...server, search_tokens: local.search_tokens }
            : server,
        );
      } else if (r.status === "conflict_server_wins") {
        report.conflicts++;
        await db.settle(m, serverVersion(userId, r.serverEntry));
      } else if (m.action === "delete" && r.code === "NOT_FOUND") {
        report.applied++;
        await db.settle(m, { tombstone: true });
      } else {
        report.failed++;
        await db.markFailed(m, `${r.code ?? "failed"}: ${r.error ?? "rejected"}`);
      }
    }
  }
  return report;
}

export type { PageListener, PullReport };

/** The first line of a pull read page by page, then its pages, then the line that ends it (src/domains/sync/service.ts, `PullFormat`). */
type PullFacts = { serverTimestamp: string; fullSyncRequired: boolean; resumed: boolean };
type PullPageLine = { changes: SyncChange[]; resume: string };

const toPulled = (userId: string, c: SyncChange): PulledChange =>
  c._deleted ? { id: c.id, tombstone: true as const } : toLocal(userId, c);

/**
 * Delta pull from the stored cursor; serverTimestamp becomes the next cursor (rule 4, D13). The
 * answer is read page by page as it arrives (docs/decisions/sync.md, "Sync: a pull read page by page,
 * resumed where it was cut"): each page is parsed alone, handed to the listener at once and stored
 * behind the parse with the position after it, so the list fills while the rest is on its way and
 * no task parses the whole vault. A connection
 * dropped part-way leaves what was stored and its position; the engine's short retry resumes from
 * there instead of pulling everything again.
 */
export async function pull(
  db: LocalDb,
  api: ApiClient,
  userId: string,
  onPage?: PageListener,
  signal?: AbortSignal,
): Promise<PullReport> {
  const since = await db.meta<string>(`cursor:${userId}`);
  const resume = await db.meta<string>(`resume:${userId}`);
  // The D1 bookmarks travel with the cursor (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): reopened later, the device still reads from
  // no replica older than what it last saw.
  api.useBookmarks(await db.meta<string>(`bookmark:${userId}`));
  performance.mark("vault:pull-sent");
  // Sent and read by the pull worker where one runs (the page's thread then never touches the
  // answer's bytes); here when none can, or when the worker did not take the answer (a refusal:
  // asked again here, where the client turns it into its error).
  const inWorker = warmPullWorker()
    ? await fetchPullInWorker(
        await api.syncPagesRequest(since, resume),
        userId,
        since,
        (bookmark) => api.noteAnswer(bookmark),
        onPage,
        signal,
      )
    : null;
  let report: PullReport;
  if (inWorker && inWorker !== "refused") report = inWorker;
  else {
    const res = await api.syncPages(since, resume, signal);
    performance.mark("vault:pull-answered");
    report = /\bapplication\/x-ndjson\b/.test(res.headers.get("content-type") ?? "")
      ? await readPagesOffThread(db, res.body!, userId, since, onPage)
      : await readWhole(db, res, userId, since);
  }
  await db.setMeta(`bookmark:${userId}`, api.bookmarkHeader());
  return report;
}

/**
 * The page-framed answer read, parsed and stored in the pull worker (pull-worker.ts) where one can
 * be started, so the page's thread only hears of each stored page; here otherwise (the service
 * worker, a build without the worker). Same store, same positions either way.
 */
async function readPagesOffThread(
  db: LocalDb,
  body: ReadableStream<Uint8Array>,
  userId: string,
  since: string | undefined,
  onPage?: PageListener,
): Promise<PullReport> {
  return (
    (await pullInWorker(body, userId, since, onPage)) ??
    (await readPages(db, body, userId, since, onPage))
  );
}

/**
 * Reads a page-framed pull into the store: the first line's facts, each page stored with its
 * position (page-writer.ts: behind the parse, a bounded number of pages ahead), the cursor taken
 * at the last line once every page is stored. Throws OfflineError for a body cut off before that
 * line (what was stored stays, with its position).
 */
export async function readPages(
  db: LocalDb,
  body: ReadableStream<Uint8Array>,
  userId: string,
  since: string | undefined,
  onPage?: PageListener,
): Promise<PullReport> {
  let facts: PullFacts | null = null;
  let writer: PageWriter | null = null;
  let changes = 0;
  try {
    for await (const line of jsonLines(body)) {
      if (!facts) {
        facts = line as PullFacts;
        if (typeof facts.serverTimestamp !== "string") break;
        const removed = await db.beginPull(
          userId,
          facts.resumed === true,
          facts.fullSyncRequired || (since === undefined && !facts.resumed),
        );
        writer = new PageWriter(db, userId, removed);
        continue;
      }
      if ((line as { complete?: boolean }).complete === true) {
        await writer!.flushed();
        await db.finishPull(userId, facts.serverTimestamp);
        return { changes, full: facts.fullSyncRequired };
      }
      const page = line as PullPageLine;
      if (!Array.isArray(page.changes) || typeof page.resume !== "string") break;
      const pulled = page.changes.map((c) => toPulled(userId, c));
      // Told once parsed, not once stored: the list need not wait for the store's writes.
      const stored = writer!.add(pulled, page.resume);
      changes += page.changes.length;
      onPage?.(pulled, stored);
      await writer!.room();
    }
  } catch (e) {
    // A store that failed is an error of its own; anything else here is the body breaking off.
    if (e instanceof DOMException && e.name !== "AbortError" && e.name !== "NetworkError") throw e;
  }
  // Cut off before its last line (the connection dropped, or a later page's read failed on the
  // server): what was stored stays with its position, the cursor stays, and the engine pulls again
  // shortly, as after any dropped connection, resuming where this one ended. The pages parsed
  // before the cut are stored first, so the retry starts from a position no write moves after it.
  await writer?.flushed().catch(() => undefined);
  throw new OfflineError();
}

/** The spec's one JSON object, from an intermediary that answered so (a cached answer offline). */
async function readWhole(
  db: LocalDb,
  res: Response,
  userId: string,
  since: string | undefined,
): Promise<PullReport> {
  const body = (await res.json().catch(() => null)) as SyncPullResponse | null;
  // A body cut off mid-way does not parse: nothing is applied and the engine pulls again shortly.
  if (!body || !Array.isArray(body.changes)) throw new OfflineError();
  await db.applyPull(
    userId,
    body.changes.map((c) => toPulled(userId, c)),
    body.fullSyncRequired || since === undefined,
    body.serverTimestamp,
  );
  await db.finishPull(userId, body.serverTimestamp);
  return { changes: body.changes.length, full: body.fullSyncRequired };
}

export async function withSyncLock<T>(run: () => Promise<T>): Promise<T> {
  return typeof navigator !== "undefined" && navigator.locks
    ? await navigator.locks.request(LOCK, run)
    : run();
}

/** Push, then pull (rule 4), under the lock. */
export function syncOnce(db: LocalDb, api: ApiClient, userId: string, onPage?: PageListener) {
  return withSyncLock(async () => ({
    pushed: await pushPending(db, api, userId),
    pulled: await pull(db, api, userId, onPage),
  }));
}

/** What the page gives the engine: its online and visibility state, and their events. */
export interface SyncHost {
  isOnline(): boolean;
  isVisible(): boolean;
  on(event: "online" | "visibilitychange", fn: () => void): () => void;
}

/**
 * `lastError` is for diagnostics (status and code); `message` is what a person is shown, never a
 * code; `needsSignIn` when the identity provider's token expired (sync resumes after signing in).
 */
export type SyncState = {
  phase: "idle" | "syncing" | "offline" | "error";
  lastError?: string;
  message?: string;
  needsSignIn?: boolean;
  lastSync?: string;
};

/** What a person reads of a failed sync: a sentence, never a status or code. */
export function syncFailureMessage(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 401) return "sign in again to sync";
    if (e.status === 403) return "this browser may not sync this vault";
    if (e.status >= 500) return "the server could not sync just now; it tries again shortly";
  }
  return "sync did not finish; it tries again shortly";
}

/**
 * Live sync (core/sync/live-sync.ts) as the engine sees it: started and stopped with the engine,
 * asked before each run's pull whether the cursor is already current.
 */
export interface PullGate {
  start(): void;
  stop(): void;
  reconnectNow(): void;
  covers(cursor: string | undefined): boolean;
  pulled(): void;
}

/** Rule 4: every 30 s while visible and online, and on `online` and on becoming visible. */
export class SyncEngine {
  private gate: PullGate | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private unsubscribe: (() => void)[] = [];
  private running: Promise<void> | null = null;
  private again = false;
  private readonly pages = new Set<PageListener>();

  constructor(
    private readonly db: LocalDb,
    private readonly api: ApiClient,
    private readonly userId: string,
    private readonly host: SyncHost,
    private readonly onState: (s: SyncState) => void,
  ) {}

  /**
   * Follows the pages of this engine's pulls as they are parsed, each with when it is stored (the
   * vault page lists them before the pull ends); returns an unsubscribe.
   */
  onPage(listener: PageListener): () => void {
    this.pages.add(listener);
    return () => this.pages.delete(listener);
  }

  /** Live sync: its notices start runs, and while it says the cursor is current a run only pushes. */
  setPullGate(gate: PullGate) {
    this.gate = gate;
  }

  start() {
    this.stop();
    this.gate?.start();
    this.timer = setInterval(() => {
      if (this.host.isOnline() && this.host.isVisible()) void this.syncNow();
    }, SYNC_PERIOD_MS);
    this.unsubscribe.push(
      this.host.on("online", () => {
        this.gate?.reconnectNow();
        void this.syncNow();
      }),
    );
    this.unsubscribe.push(
      this.host.on("visibilitychange", () => {
        if (this.host.isVisible()) void this.syncNow();
      }),
    );
    void this.syncNow(true);
  }

  stop() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    clearTimeout(this.retry);
    this.gate?.stop();
    for (const off of this.unsubscribe.splice(0)) off();
  }

  get active() {
    return this.timer !== null;
  }

  /**
   * One sync at a time; a request during a run schedules one more run after it. `starting`: the
   * page's first run, which skips its pull after a recent one (RECENT_PULL_MS).
   */
  syncNow(starting = false): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.run(starting).finally(() => {
      this.running = null;
      if (this.again && this.active) {
        this.again = false;
        void this.syncNow();
      }
    });
    return this.running;
  }

  /** The next run, `ms` from now (a run asked for meanwhile replaces it). */
  private retryAt(ms: number) {
    clearTimeout(this.retry);
    if (this.active) this.retry = setTimeout(() => void this.syncNow(), Math.max(0, ms));
  }

  /** Whether any tab of this browser pulled moments ago (the store's mark, shared by tabs). */
  private async pulledRecently(): Promise<boolean> {
    const last = await this.db.meta<string>(`lastSync:${this.userId}`);
    return !!last && Date.now() - Date.parse(last) < RECENT_PULL_MS;
  }

  private async run(starting = false) {
    if (!this.host.isOnline()) {
      this.onState({ phase: "offline" });
      return;
    }
    // A refusal by a rate limit holds every tab of this browser back until its Retry-After.
    const quietUntil = Date.parse((await this.db.meta<string>(`quietUntil:${this.userId}`)) ?? "");
    if (quietUntil > Date.now()) {
      this.retryAt(quietUntil - Date.now());
      return;
    }
    this.onState({ phase: "syncing" });
    try {
      const gate = this.gate;
      // A pull cut off part-way is resumed whatever live sync says of the cursor.
      const cut = (await this.db.meta<string>(`resume:${this.userId}`)) !== undefined;
      const current =
        gate?.covers(await this.db.meta<string>(`cursor:${this.userId}`)) ||
        (starting && (await this.pulledRecently()));
      if (!cut && current) await withSyncLock(() => pushPending(this.db, this.api, this.userId));
      else {
        gate?.pulled();
        await syncOnce(this.db, this.api, this.userId, (changes, stored) => {
          // A listener's failure is its own: the pull goes on.
          for (const l of [...this.pages]) {
            try {
              l(changes, stored);
            } catch (e) {
              console.error(e);
            }
          }
        });
      }
      this.onState({ phase: "idle", lastSync: new Date().toISOString() });
    } catch (e) {
      if (e instanceof OfflineError) {
        this.onState({ phase: "offline" });
        clearTimeout(this.retry);
        if (this.host.isOnline() && this.active)
          this.retry = setTimeout(() => void this.syncNow(), RETRY_MS);
      } else if (e instanceof ApiError && e.status === 429) {
        // Refused by a rate limit: quiet, and asked again once the server says it may answer.
        this.onState({ phase: "idle" });
        const wait =
          e.retryAfterSeconds !== undefined
            ? Math.max(1, e.retryAfterSeconds) * 1000
            : RATE_LIMITED_WAIT_MS;
        await this.db.setMeta(
          `quietUntil:${this.userId}`,
          new Date(Date.now() + wait).toISOString(),
        );
        this.retryAt(wait);
      } else {
        this.onState({
          phase: "error",
          lastError: e instanceof ApiError ? `${e.status} ${e.body.code}: ${e.message}` : String(e),
          message: syncFailureMessage(e),
          needsSignIn: e instanceof ApiError && e.status === 401,
        });
      }
    }
  }
}
