import { env } from "cloudflare:test";
import { expect } from "vitest";
import { toBase64 } from "../../src/kernel/base64";
import type { TestUser } from "./auth";
import { SELF } from "./worker";

export type LinkView = {
  id: string;
  kind: "text" | "file";
  size: number;
  state: string;
  max_views: number;
  views_used: number;
  expires_at: string;
  last_opened_at: string | null;
  created_at: string;
  has_passphrase: boolean;
  hide_sender: boolean;
};

export const HOUR = 3600;

/** A secret sealed as the browser seals it: IV ‖ AES-GCM(plaintext) under a fresh key. */
export async function sealed(
  plaintext: string | Uint8Array,
): Promise<{ key: CryptoKey; content: string }> {
  const key = (await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, [
    "encrypt",
    "decrypt",
  ])) as CryptoKey;
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = typeof plaintext === "string" ? new TextEncoder().encode(plaintext) : plaintext;
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, data));
  const out = new Uint8Array(12 + ct.length);
  out.set(iv);
  out.set(ct, 12);
  return { key, content: toBase64(out) };
}

/** A passphrase verifier as the open page makes one: 32 bytes, here random. */
export const verifier = () => toBase64(crypto.getRandomValues(new Uint8Array(32)));
export const salt = () => toBase64(crypto.getRandomValues(new Uint8Array(16)));

export async function createLink(user: TestUser, body: Record<string, unknown>): Promise<LinkView> {
  const res = await user.call("POST", "/api/links", { body });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { link: LinkView }).link;
}

export async function textLink(
  user: TestUser,
  opts: Record<string, unknown> = {},
  secret = "correct horse battery staple",
) {
  const { key, content } = await sealed(secret);
  const link = await createLink(user, {
    kind: "text",
    content,
    expires_in_seconds: HOUR,
    max_views: 1,
    ...opts,
  });
  return { link, key, content };
}

/** The opener: no account, its own IP so the per-IP limit of one test does not reach another. */
export function opener(ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`) {
  const headers = { "cf-connecting-ip": ip, "content-type": "application/json" };
  return {
    meta: (id: string) => SELF.fetch(`https://vault.test/api/links/public/${id}`, { headers }),
    code: (id: string, email: string) =>
      SELF.fetch(`https://vault.test/api/links/public/${id}/code`, {
        method: "POST",
        headers,
        body: JSON.stringify({ email }),
      }),
    open: (id: string, body: Record<string, unknown> = {}) =>
      SELF.fetch(`https://vault.test/api/links/public/${id}/open`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      }),
  };
}

export async function linkRow(id: string) {
  return env.DB.prepare("SELECT * FROM secure_links WHERE id = ?")
    .bind(id)
    .first<Record<string, unknown>>();
}

export async function r2Objects(ownerId: string): Promise<string[]> {
  return (await env.ATTACHMENTS.list({ prefix: `links/${ownerId}/` })).objects.map((o) => o.key);
}

// From a random start in 100.64.0.0/10, so two test files importing this do not share IPs.
let ipSeq = Math.floor(Math.random() * 4_000_000);
/** An IP of its own per ask, so the per-IP code limit is not what a test exercises by accident. */
export const freshIp = () => {
  const n = ipSeq++ % 4_194_304;
  return `100.${64 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
};

export type Attempt = { challenge: string; expires_at: string; message: string };

/** Asks for a code for `email` and expects the 202 every address gets. */
export async function attempt(id: string, email: string, ip = freshIp()): Promise<Attempt> {
  const res = await opener(ip).code(id, email);
  expect(res.status, await res.clone().text()).toBe(202);
  return (await res.json()) as Attempt;
}

export async function codeMails(to: string): Promise<string[]> {
  const r = await env.DB.prepare(
    "SELECT text_body FROM outbound_emails WHERE to_address = ? AND kind = 'secure_link.code' ORDER BY created_at",
  )
    .bind(to.toLowerCase())
    .all<{ text_body: string }>();
  return r.results.map((m) => m.text_body);
}

/** The code of the n-th mail to `to` (the mail leaves beside the answer, so it is waited for). */
export async function mailedCode(to: string, n: number): Promise<string> {
  await expect.poll(async () => (await codeMails(to)).length).toBeGreaterThanOrEqual(n);
  const m = /one-time code is (\d{6})/.exec((await codeMails(to))[n - 1]!);
  if (!m) throw new Error("no code in the mail");
  return m[1]!;
}
