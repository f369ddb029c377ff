import { env } from "cloudflare:test";
import type { TestUser } from "../support/auth";

export const b64 = (n = 48) =>
  btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(n))));
export const hex = (n = 64) =>
  [...crypto.getRandomValues(new Uint8Array(n / 2))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

export type Change = Record<string, unknown> & { id: string; _deleted: boolean };
export type PullBody = { changes: Change[]; serverTimestamp: string; fullSyncRequired: boolean };
export type Result = {
  id: string;
  status: string;
  serverEntry?: Change;
  error?: string;
  code?: string;
  details?: unknown[];
};
export type PushBody = { results: Result[]; serverTimestamp: string };

export async function pull(user: TestUser, since?: string): Promise<PullBody> {
  const res = await user.call(
    "GET",
    `/api/passwords/sync${since ? `?since=${encodeURIComponent(since)}` : ""}`,
  );
  if (res.status !== 200) throw new Error(`pull failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as PullBody;
}

export async function push(user: TestUser, mutations: unknown[]): Promise<PushBody> {
  const res = await user.call("POST", "/api/passwords/sync", { body: { mutations } });
  if (res.status !== 200) throw new Error(`push failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as PushBody;
}

export function envelope(over: Record<string, unknown> = {}) {
  return {
    name: "Synced",
    website: "sync.example.com",
    wrapped_item_key: b64(40),
    encrypted_data: b64(100),
    encryption_version: 3,
    ...over,
  };
}

export const at = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

export const create = (
  id = crypto.randomUUID(),
  data: Record<string, unknown> = {},
  clientUpdatedAt = at(),
) => ({
  action: "create",
  id,
  data: envelope(data),
  clientUpdatedAt,
});

export function importEntry(over: Record<string, unknown> = {}) {
  return {
    wrapped_item_key: b64(40),
    encrypted_data: b64(120),
    domain_hash: hex(),
    name_hash: hex(),
    username_hash: hex(),
    search_tokens: [hex(16)],
    ...over,
  };
}

export async function row(id: string) {
  return env.DB.prepare("SELECT * FROM passwords WHERE id = ?")
    .bind(id)
    .first<Record<string, unknown>>();
}

export async function countRows(userId: string, live = true) {
  const r = await env.DB.prepare(
    `SELECT count(*) AS n FROM passwords WHERE user_id = ?${live ? " AND deleted_at IS NULL" : ""}`,
  )
    .bind(userId)
    .first<{ n: number }>();
  return r?.n ?? 0;
}

/** Registers a device for the user straight in D1 (the devices API belongs to another domain). */
export async function registerDevice(userId: string, trust: "trusted" | "recognized" | "unknown") {
  const fingerprint = `fp-${crypto.randomUUID()}`;
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO devices (id, user_id, device_fingerprint, device_name, device_type, trust_level, last_active_at, created_at) VALUES (?, ?, ?, 'Laptop', 'desktop', ?, ?, ?)",
  )
    .bind(crypto.randomUUID(), userId, fingerprint, trust, now, now)
    .run();
  return fingerprint;
}
