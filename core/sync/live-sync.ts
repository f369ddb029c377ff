/**
 * Live sync: one WebSocket per app (web page or the extension's vault) to the user's hub, which
 * says when the account's change clock moved (src/kernel/live-sync.ts; never content). A notice of
 * a clock past this device's cursor starts a delta pull at once; while connected and current, the
 * 30-second sync run skips its pull (pending changes still push at once), with a delta pull at
 * least every five minutes as a safety net (docs/decisions/sync.md, "Sync: live sync (a hub per user, told after each commit)").
 */
import type { ApiClient } from "../api";
import type { LocalDb } from "../store";
import {
  cursorCovers,
  LIVE_SYNC_BEARER_PREFIX,
  LIVE_SYNC_PING,
  LIVE_SYNC_PROTOCOL,
  parseLiveSyncMessage,
  type LiveSyncTopic,
} from "../../src/kernel/live-sync";
import {
  pushPending,
  syncOnce,
  withSyncLock,
  type PageListener,
  type PullGate,
} from "./sync-engine";

/** The safety net: a connected, current device still pulls this often. */
export const SAFETY_PULL_MS = 5 * 60_000;
/** Reconnect backoff: doubles from 1 s to at most 60 s, each wait jittered over its upper half. */
export const RECONNECT_BASE_MS = 1_000;
export const RECONNECT_MAX_MS = 60_000;
/** Keepalive (answered by the runtime, never waking the hub); a connection silent past the deadline is dropped. */
export const KEEPALIVE_MS = 45_000;
export const KEEPALIVE_DEADLINE_MS = 15_000;

export type LiveSyncOptions = {
  /** The hub's address: `wss://<origin>/api/sync/live`. */
  url: string;
  /** The subprotocols to offer: `vault-live`, and a bearer client's token (LIVE_SYNC_BEARER_PREFIX). */
  protocols: () => Promise<string[]>;
  /** This device's sync cursor (its last pull's serverTimestamp). */
  cursor: () => Promise<string | undefined>;
  /** Told a clock the cursor does not cover: pull now. */
  onStale: () => void;
  /** Told that something the pull does not carry changed (shares, emergency access): refresh it. */
  onTopic?: (topic: LiveSyncTopic) => void;
  WebSocket?: typeof WebSocket;
  random?: () => number;
};

/** The backoff before reconnect attempt `attempt` (0 first): the upper half of the doubled window. */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const window = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** attempt);
  return Math.round(window / 2 + (random() * window) / 2);
}

export class LiveSync implements PullGate {
  private ws: WebSocket | null = null;
  private ready = false;
  private hubClock: string | null = null;
  private attempt = 0;
  private lastPull = 0;
  private stopped = true;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private keepalive: ReturnType<typeof setInterval> | undefined;
  private heard = 0;

  constructor(private readonly opts: LiveSyncOptions) {}

  /** Open: the hub has greeted this connection (so it knows the hub's clock). */
  get connected(): boolean {
    return this.ready;
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.keepalive);
    this.ready = false;
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000);
  }

  /** Back online (the browser said so): reconnect now rather than at the backoff's end. */
  reconnectNow() {
    if (this.stopped || this.ws) return;
    clearTimeout(this.retry);
    this.attempt = 0;
    void this.connect();
  }

  /** The sync run asks: may it skip its pull? Only while connected, current, and within the safety net. */
  covers(cursor: string | undefined, now = Date.now()): boolean {
    return (
      this.ready && now - this.lastPull < SAFETY_PULL_MS && cursorCovers(cursor, this.hubClock)
    );
  }

  /** A pull began: the safety net counts from here. */
  pulled(now = Date.now()) {
    this.lastPull = now;
  }

  private async connect() {
    let ws: WebSocket;
    try {
      const protocols = await this.opts.protocols();
      if (this.stopped) return;
      ws = new (this.opts.WebSocket ?? WebSocket)(this.opts.url, protocols);
    } catch {
      this.schedule();
      return;
    }
    this.ws = ws;
    ws.addEventListener("message", (e) => {
      this.heard = Date.now();
      const m = parseLiveSyncMessage(e.data);
      if (!m) return;
      if (m.type === "topic") return this.opts.onTopic?.(m.topic);
      if (m.type === "hello") {
        this.ready = true;
        this.attempt = 0;
        this.hubClock = m.clock;
      } else if (this.hubClock === null || Date.parse(m.clock) > Date.parse(this.hubClock)) {
        this.hubClock = m.clock;
      }
      void this.check();
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.ready = false;
      clearInterval(this.keepalive);
      if (!this.stopped) this.schedule();
    });
    clearInterval(this.keepalive);
    this.heard = Date.now();
    this.keepalive = setInterval(() => {
      if (this.ws !== ws) return;
      // Nothing heard since the last ping's deadline: the connection is dead without a close.
      if (Date.now() - this.heard > KEEPALIVE_MS + KEEPALIVE_DEADLINE_MS) {
        ws.close(4000, "keepalive");
        return;
      }
      if (ws.readyState === ws.OPEN) ws.send(LIVE_SYNC_PING);
    }, KEEPALIVE_MS);
  }

  private async check() {
    if (!cursorCovers(await this.opts.cursor(), this.hubClock)) this.opts.onStale();
  }

  private schedule() {
    clearTimeout(this.retry);
    this.retry = setTimeout(
      () => void this.connect(),
      reconnectDelay(this.attempt++, this.opts.random),
    );
  }
}

/** The hub's address for an app at `origin` (an http(s) origin; "" is this page's). */
export function liveSyncUrl(origin: string): string {
  const url = new URL("/api/sync/live", origin || location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/** The subprotocols: the web page authenticates with its cookie; a bearer client offers its token. */
export function liveSyncProtocols(bearer?: () => Promise<string | null>): () => Promise<string[]> {
  return async () => {
    const token = bearer ? await bearer() : null;
    return token
      ? [LIVE_SYNC_PROTOCOL, `${LIVE_SYNC_BEARER_PREFIX}${token}`]
      : [LIVE_SYNC_PROTOCOL];
  };
}

/**
 * For a client without the engine (the extension's vault): one sync run, its pull skipped while the
 * hub says the cursor is current (a pull cut part-way is resumed whatever the hub says, as the
 * engine does). `onPage` hears each page of the pull once parsed, with when it is stored.
 */
export async function gatedSync(
  db: LocalDb,
  api: ApiClient,
  userId: string,
  gate: PullGate | null,
  onPage?: PageListener,
): Promise<void> {
  const cut = (await db.meta<string>(`resume:${userId}`)) !== undefined;
  if (!cut && gate?.covers(await db.meta<string>(`cursor:${userId}`))) {
    await withSyncLock(() => pushPending(db, api, userId));
    return;
  }
  gate?.pulled();
  await syncOnce(db, api, userId, onPage);
}
