import { expect } from "vitest";
import { parseLiveSyncMessage, type LiveSyncMessage } from "../../src/kernel/live-sync";
import type { TestUser } from "./auth";
import { SELF } from "./worker";

export const LIVE_URL = "https://vault.test/api/sync/live";

/** A WebSocket handshake to the live route with the given headers. */
export function handshake(headers: Record<string, string>) {
  return SELF.fetch(LIVE_URL, {
    headers: { upgrade: "websocket", "sec-websocket-protocol": "vault-live", ...headers },
  });
}

/** An open live connection and the messages it has received, in order. */
export class Live {
  readonly messages: LiveSyncMessage[] = [];
  readonly closes: number[] = [];
  private waiters: (() => void)[] = [];
  constructor(readonly ws: WebSocket) {
    ws.accept();
    ws.addEventListener("message", (e) => {
      const m = parseLiveSyncMessage(e.data);
      if (m) this.messages.push(m);
      for (const w of this.waiters.splice(0)) w();
    });
    ws.addEventListener("close", (e) => {
      this.closes.push(e.code);
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(user: TestUser): Promise<Live> {
    const res = await handshake({ authorization: `Bearer ${user.token}` });
    expect(res.status).toBe(101);
    expect(res.headers.get("sec-websocket-protocol")).toBe("vault-live");
    const live = new Live(res.webSocket!);
    await live.until((m) => m.length >= 1);
    return live;
  }

  /** Waits for the messages to satisfy `done` (the test's own timeout bounds the wait). */
  async until(done: (m: LiveSyncMessage[]) => boolean): Promise<LiveSyncMessage[]> {
    while (!done(this.messages)) await new Promise<void>((r) => this.waiters.push(r));
    return this.messages;
  }

  changes() {
    return this.messages.filter((m) => m.type === "changed").map((m) => m.clock);
  }

  /** The topics heard (live sync's `topic` notices), in order. */
  topics() {
    return this.messages.filter((m) => m.type === "topic").map((m) => m.topic);
  }
}
