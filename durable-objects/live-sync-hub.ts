import { DurableObject } from "cloudflare:workers";
import {
  LIVE_SYNC_CLOSE,
  LIVE_SYNC_PING,
  LIVE_SYNC_PONG,
  LIVE_SYNC_PROTOCOL,
  type LiveSyncMessage,
  type LiveSyncTopic,
} from "../src/kernel/live-sync";

/** What a connection carries through hibernation (serializeAttachment): when its token ends. */
type Attachment = { expiresAt: number };

/** What the worker tells the hub about a connection it authenticated. */
export type LiveSyncConnect = { userId: string; expiresAt: number; maxConnections: number };

export type LiveSyncState = { userId: string | null; connections: number; clock: number | null };

const CONNECT_HEADER = "x-live-sync-connect";

/**
 * One user's live-sync hub (one object per user id, named by the authenticated user, never by
 * input). It knows the user id, its open connections and the last change-clock value it was told;
 * never an entry or a name. Connections use the hibernation API: an idle one costs no duration,
 * and an evicted hub reads its state back from storage and its sockets from the runtime.
 */
export class LiveSyncHub extends DurableObject {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    // A device's keepalive is answered by the runtime and never wakes the hub.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(LIVE_SYNC_PING, LIVE_SYNC_PONG));
  }

  /** The WebSocket upgrade, already authenticated by the worker (src/domains/live-sync). */
  async fetch(request: Request): Promise<Response> {
    const connect = JSON.parse(
      request.headers.get(CONNECT_HEADER) ?? "null",
    ) as LiveSyncConnect | null;
    if (!connect || request.headers.get("upgrade")?.toLowerCase() !== "websocket")
      return new Response(null, { status: 400 });
    await this.remember(connect.userId);
    const open = this.ctx.getWebSockets();
    // The worker turns this into the API's 429 body (src/domains/live-sync).
    if (open.length >= connect.maxConnections) return new Response(null, { status: 429 });
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ expiresAt: connect.expiresAt } satisfies Attachment);
    const clock = await this.clock();
    server.send(
      JSON.stringify({
        type: "hello",
        clock: clock === null ? null : new Date(clock).toISOString(),
      } satisfies LiveSyncMessage),
    );
    return new Response(null, {
      status: 101,
      webSocket: client,
      headers: { "Sec-WebSocket-Protocol": LIVE_SYNC_PROTOCOL },
    });
  }

  /**
   * A write committed with change clock `clock`: store it and tell every open connection. A value
   * at or below the last one is old news (notifications may arrive out of order) and goes nowhere.
   * Returns how many connections were told.
   */
  async notify(userId: string, clock: number): Promise<number> {
    await this.remember(userId);
    const last = await this.clock();
    if (last !== null && clock <= last) return 0;
    await this.ctx.storage.put("clock", clock);
    return this.broadcast({ type: "changed", clock: new Date(clock).toISOString() });
  }

  /**
   * Something the pull does not carry changed for this user (their shares, their emergency
   * records): tell every open connection which section to refresh. Nothing is stored: a device
   * that was not connected reads the section when it next shows it.
   */
  async topic(userId: string, topic: LiveSyncTopic): Promise<number> {
    await this.remember(userId);
    return this.broadcast({ type: "topic", topic });
  }

  private broadcast(message: LiveSyncMessage): number {
    const text = JSON.stringify(message);
    const now = Date.now();
    let told = 0;
    for (const ws of this.ctx.getWebSockets()) {
      const a = ws.deserializeAttachment() as Attachment | null;
      try {
        // The token the connection was opened with has run out: the device reconnects with a
        // fresh one (and pulls, so it misses nothing).
        if (!a || a.expiresAt <= now) ws.close(LIVE_SYNC_CLOSE.TOKEN_EXPIRED, "token expired");
        else {
          ws.send(text);
          told++;
        }
      } catch {
        /* already closing */
      }
    }
    return told;
  }

  async state(): Promise<LiveSyncState> {
    return {
      userId: (await this.ctx.storage.get<string>("userId")) ?? null,
      connections: this.ctx.getWebSockets().length,
      clock: await this.clock(),
    };
  }

  /** A device sends nothing but the keepalive (answered without us); anything else is ignored. */
  async webSocketMessage(): Promise<void> {}

  async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    // Completes the closing handshake (1005/1006 are not codes one may send).
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      /* already closed */
    }
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    try {
      ws.close(1011, "error");
    } catch {
      /* already closed */
    }
  }

  private async clock(): Promise<number | null> {
    return (await this.ctx.storage.get<number>("clock")) ?? null;
  }

  private async remember(userId: string) {
    const known = await this.ctx.storage.get<string>("userId");
    // The hub is named by the user id, so a different one here is a bug in a caller: refuse it.
    if (known !== undefined && known !== userId)
      throw new Error("live-sync hub belongs to another user");
    if (known === undefined) await this.ctx.storage.put("userId", userId);
  }
}

/** How the worker reaches a user's hub. */
export interface LiveSyncClient {
  connect(request: Request, c: LiveSyncConnect): Promise<Response>;
  notify(clock: number): Promise<number>;
  topic(topic: LiveSyncTopic): Promise<number>;
  state(): Promise<LiveSyncState>;
}

export type LiveSyncNamespace = DurableObjectNamespace<LiveSyncHub>;

export function liveSyncHub(ns: LiveSyncNamespace, userId: string): LiveSyncClient {
  const stub = ns.get(ns.idFromName(userId));
  return {
    connect: (request, c) => {
      const headers = new Headers(request.headers);
      headers.set(CONNECT_HEADER, JSON.stringify(c));
      return stub.fetch(new Request("https://live-sync/connect", { headers }));
    },
    notify: (clock) => stub.notify(userId, clock),
    topic: (topic) => stub.topic(userId, topic),
    state: () => stub.state() as Promise<LiveSyncState>,
  };
}
