/**
 * Offline-first sync (spec "Client offline behaviour" rules 4 and 5). The core (push, pull,
 * syncOnce) runs in pages and in the service worker; SyncEngine adds the page's schedule through a
 * small host interface, so this module needs no DOM.
 */
import { ApiError, OfflineError, type ApiClient, type SyncChange, type SyncEntry, type WireMutation } from "./api";
import type { LocalDb, LocalEntry, PendingMutation } from "./db";

export const SYNC_PERIOD_MS = 30_000;
/** Placeholder entries (spec: encryption_version -1) that the client must still encrypt. */
export const PLACEHOLDER_VERSION = -1;
/** After a network failure while the browser reports a connection (it often does for a moment after reconnecting). */
export const RETRY_MS = 2_000;
/** The server's batch limit (spec "Limits": max 100 mutations per batch). */
export const MAX_BATCH = 100;
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
    ...(e.encryption_version === PLACEHOLDER_VERSION ? { username: e.username ?? null } : {}),
  };
}

const serverVersion = (userId: string, c: SyncChange | undefined) => (c === undefined ? undefined : c._deleted ? ({ tombstone: true } as const) : toLocal(userId, c));

function wire(p: PendingMutation): WireMutation {
  if (p.action === "delete") return { action: "delete", id: p.entryId, clientUpdatedAt: p.clientUpdatedAt };
  return { action: p.action, id: p.entryId, data: p.data!, clientUpdatedAt: p.clientUpdatedAt };
}

export type PushReport = { sent: number; applied: number; conflicts: number; failed: number };

/**
 * Sends the queue in batches of at most 100 (one batch for any ordinary queue). Applied and
 * conflict_server_wins leave the queue; on a conflict the local entry takes serverEntry. Failed
 * mutations stay queued with their error, except a delete of an entry the server no longer has.
 */
export async function pushPending(db: LocalDb, api: ApiClient, userId: string): Promise<PushReport> {
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
        const local = server && !("tombstone" in server) ? await db.entry(userId, m.entryId) : undefined;
        await db.settle(m, server && local && !("tombstone" in server) && local.encrypted_data === server.encrypted_data && local.wrapped_item_key === server.wrapped_item_key ? { ...server, search_tokens: local.search_tokens } : server);
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

export type PullReport = { changes: number; full: boolean };

/** Delta pull from the stored cursor; serverTimestamp becomes the next cursor (rule 4, D13). */
export async function pull(db: LocalDb, api: ApiClient, userId: string): Promise<PullReport> {
  const since = await db.meta<string>(`cursor:${userId}`);
  // The D1 bookmarks travel with the cursor (docs/decisions.md, Scale: shards, a directory, many databases): reopened later, the device still reads from
  // no replica older than what it last saw.
  api.useBookmarks(await db.meta<string>(`bookmark:${userId}`));
  const res = await api.syncPull(since);
  // A body cut off mid-way (the connection dropped during a long full pull, or a later page's read
  // failed on the server) does not parse: nothing is applied, the cursor stays, and the engine pulls
  // again shortly, as after any dropped connection, rather than reporting a failed sync.
  if (!res || !Array.isArray(res.changes)) throw new OfflineError();
  const changes = res.changes.map((c) => (c._deleted ? { id: c.id, tombstone: true as const } : toLocal(userId, c)));
  await db.applyPull(userId, changes, res.fullSyncRequired || since === undefined, res.serverTimestamp);
  await db.setMeta(`bookmark:${userId}`, api.bookmarkHeader());
  return { changes: res.changes.length, full: res.fullSyncRequired };
}

export async function withSyncLock<T>(run: () => Promise<T>): Promise<T> {
  return typeof navigator !== "undefined" && navigator.locks ? await navigator.locks.request(LOCK, run) : run();
}

/** Push, then pull (rule 4), under the lock. */
export function syncOnce(db: LocalDb, api: ApiClient, userId: string) {
  return withSyncLock(async () => ({ pushed: await pushPending(db, api, userId), pulled: await pull(db, api, userId) }));
}

/** What the page gives the engine: its online and visibility state, and their events. */
export interface SyncHost {
  isOnline(): boolean;
  isVisible(): boolean;
  on(event: "online" | "visibilitychange", fn: () => void): () => void;
}

export type SyncState = { phase: "idle" | "syncing" | "offline" | "error"; lastError?: string; lastSync?: string };

/**
 * Live sync (client/src/live-sync.ts) as the engine sees it: started and stopped with the engine,
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

  constructor(
    private readonly db: LocalDb,
    private readonly api: ApiClient,
    private readonly userId: string,
    private readonly host: SyncHost,
    private readonly onState: (s: SyncState) => void,
  ) {}

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
    void this.syncNow();
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

  /** One sync at a time; a request during a run schedules one more run after it. */
  syncNow(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.run().finally(() => {
      this.running = null;
      if (this.again && this.active) {
        this.again = false;
        void this.syncNow();
      }
    });
    return this.running;
  }

  private async run() {
    if (!this.host.isOnline()) {
      this.onState({ phase: "offline" });
      return;
    }
    this.onState({ phase: "syncing" });
    try {
      const gate = this.gate;
      if (gate?.covers(await this.db.meta<string>(`cursor:${this.userId}`))) await withSyncLock(() => pushPending(this.db, this.api, this.userId));
      else {
        gate?.pulled();
        await syncOnce(this.db, this.api, this.userId);
      }
      this.onState({ phase: "idle", lastSync: new Date().toISOString() });
    } catch (e) {
      if (e instanceof OfflineError) {
        this.onState({ phase: "offline" });
        clearTimeout(this.retry);
        if (this.host.isOnline() && this.active) this.retry = setTimeout(() => void this.syncNow(), RETRY_MS);
      } else {
        this.onState({ phase: "error", lastError: e instanceof ApiError ? `${e.status} ${e.body.code}: ${e.message}` : String(e) });
      }
    }
  }
}
