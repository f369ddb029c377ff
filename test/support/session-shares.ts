import { env } from "cloudflare:test";
import { SELF } from "./worker";
import type { TestUser } from "./auth";
import { createEntry } from "./fixtures";

export const site = () => env.TEST_SITE_URL;

export async function siteAccount() {
  const username = `user-${crypto.randomUUID().slice(0, 8)}`;
  const password = `Pw!${crypto.randomUUID().replace(/-/g, "")}`;
  const res = await fetch(`${site()}/register`, {
    method: "POST",
    body: JSON.stringify({ username, password }),
  });
  if (res.status !== 204) throw new Error(`register failed ${res.status}`);
  return { username, password };
}

export async function siteStats(username: string) {
  return (await (await fetch(`${site()}/stats?u=${encodeURIComponent(username)}`)).json()) as {
    logins: number;
    clicks: number;
    failed: number;
  };
}

/** Registers a device for the user at the given trust (D11 refuses viewing from unknown devices). */
export async function registerDevice(
  user: TestUser,
  trust: "trusted" | "recognized" = "recognized",
): Promise<string> {
  const fp = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO devices (id, user_id, device_fingerprint, device_name, device_type, trust_level, is_current, last_active_at, created_at) VALUES (?, ?, ?, 'test', 'desktop', ?, 0, ?, ?)",
  )
    .bind(crypto.randomUUID(), user.id, fp, trust, now, now)
    .run();
  return fp;
}

export type Created = {
  id: string;
  shareToken: string;
  shareUrl: string;
  status: string;
  estimatedCostCents: number;
  expiresAt: string;
  serviceName: string;
  loginMethod: string;
};

export async function createSessionShare(
  owner: TestUser,
  over: Record<string, unknown> = {},
  account?: { username: string; password: string },
) {
  const creds = account ?? (await siteAccount());
  const entry = await createEntry(owner, {
    name: "Test site",
    url: `${site()}/login`,
    website: "127.0.0.1",
  });
  const res = await owner.call("POST", "/api/session-shares", {
    body: {
      accountId: entry.id,
      decryptedUsername: creds.username,
      decryptedPassword: creds.password,
      ...over,
    },
  });
  if (res.status !== 201)
    throw new Error(`session share create failed: ${res.status} ${await res.text()}`);
  return { created: (await res.json()) as Created, creds, entry };
}

export type SseEvent = { event: string; data: Record<string, unknown> };

/** Reads the owner's status stream to its end. */
export async function readStatusStream(
  owner: TestUser,
  id: string,
): Promise<{ res: Response; events: SseEvent[] }> {
  const res = await owner.call("GET", `/api/session-shares/${id}/status`);
  const text = await res.text();
  const events = text
    .split("\n\n")
    .filter((b) => b.trim())
    .map((b) => {
      const event = /^event: (.*)$/m.exec(b)?.[1] ?? "message";
      const data = JSON.parse(/^data: (.*)$/m.exec(b)?.[1] ?? "{}") as Record<string, unknown>;
      return { event, data };
    });
  return { res, events };
}

export async function ticket(user: TestUser, path: string, fingerprint: string) {
  return user.call("POST", path, { headers: { "x-device-fingerprint": fingerprint } });
}

export type Live = {
  ws: WebSocket;
  messages: string[];
  closed: Promise<{ code: number }>;
  waitFor(
    pred: (m: Record<string, unknown>) => boolean,
    ms?: number,
  ): Promise<Record<string, unknown>>;
};

/** Opens the live WebSocket and records every message it receives, raw. */
export async function openLive(wsUrl: string): Promise<Live> {
  const res = await SELF.fetch(`https://vault.test${wsUrl}`, { headers: { upgrade: "websocket" } });
  const ws = res.webSocket;
  if (!ws) throw new Error(`no websocket: ${res.status} ${await res.text()}`);
  ws.accept();
  const messages: string[] = [];
  const waiters: (() => void)[] = [];
  ws.addEventListener("message", (e) => {
    messages.push(typeof e.data === "string" ? e.data : "<binary>");
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<{ code: number }>((resolve) =>
    ws.addEventListener("close", (e) => resolve({ code: e.code })),
  );
  return {
    ws,
    messages,
    closed,
    async waitFor(pred, ms = 20_000) {
      const deadline = Date.now() + ms;
      let seen = 0;
      for (;;) {
        for (; seen < messages.length; seen++) {
          const m = JSON.parse(messages[seen]) as Record<string, unknown>;
          if (pred(m)) return m;
        }
        if (Date.now() > deadline)
          throw new Error(`timed out; got ${messages.map((m) => m.slice(0, 80)).join(" | ")}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 250);
        });
      }
    },
  };
}
