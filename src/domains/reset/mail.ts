import { tokensFor } from "../integrations";
import PostalMime from "postal-mime";
import type { Bindings, Config } from "../../env";
import { ImapClient } from "../../lib/imap/client";
import { openImap, type ImapCredentials } from "../integrations";
import { providerConfig } from "../integrations";
import type { ResolvedService } from "../registry";

export type FoundMail = { link: string | null; otp: string | null };

const URL_IN_TEXT = /https?:\/\/[^\s"'<>()]+/gi;
const HREF = /href\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const RESETISH = /reset|password|recover|token|verify/i;

const decodeEntities = (s: string) => s.replace(/&amp;/g, "&").replace(/&#x2F;/gi, "/").replace(/&#47;/g, "/").replace(/&quot;/g, '"');

/** The service's registrable domain or a subdomain of it; never a name that merely contains it. */
export function onServiceDomain(url: string, domain: string): boolean {
  try {
    const u = new URL(url);
    const h = u.hostname.toLowerCase();
    const d = domain.toLowerCase();
    return (u.protocol === "https:" || u.protocol === "http:") && (h === d || h.endsWith(`.${d}`));
  } catch {
    return false;
  }
}

/**
 * The link extraction function (never overridden, spec "Resolution"): links from the HTML part
 * first, then the text part, and only links on the service's domain (the From header, display
 * name and address alike, is the sender's claim and steers nothing); of those the first that
 * matches one of the service's link patterns wins, else the first that looks like a reset link.
 */
export function extractResetLink(html: string | undefined, text: string | undefined, svc: Pick<ResolvedService, "linkPatterns" | "domain">): string | null {
  const candidates: string[] = [];
  for (const m of (html ?? "").matchAll(HREF)) candidates.push(decodeEntities(m[1] ?? m[2] ?? ""));
  for (const m of (text ?? "").matchAll(URL_IN_TEXT)) candidates.push(m[0].replace(/[.,;:!?]+$/, ""));
  const urls = candidates.filter((u) => /^https?:\/\//i.test(u) && onServiceDomain(u, svc.domain));
  for (const re of svc.linkPatterns) {
    const hit = urls.find((u) => re.test(u));
    if (hit) return hit;
  }
  return urls.find((u) => RESETISH.test(u)) ?? null;
}

/**
 * What the receiving server's Authentication-Results headers (RFC 8601) say of DKIM and DMARC
 * for the service's domain: "pass" if any says pass, "fail" if one says fail and none pass, else
 * "none" (no header, or results for other domains). The identity compared is `header.d` for DKIM
 * and `header.from` for DMARC (RFC 8601 section 2.7.1 and 2.7.3 property names).
 */
export function authVerdict(results: string[], domain: string): "pass" | "fail" | "none" {
  const d = domain.toLowerCase();
  let verdict: "fail" | "none" = "none";
  for (const header of results) {
    for (const part of header.replace(/\([^)]*\)/g, " ").split(";").slice(1)) {
      const m = /^\s*(dkim|dmarc)\s*=\s*(\w+)/i.exec(part);
      if (!m) continue;
      const id = /\bheader\.(?:d|from|i)\s*=\s*"?([^\s";]+)/i.exec(part)?.[1]?.toLowerCase().replace(/^.*@/, "");
      if (!id || !(id === d || id.endsWith(`.${d}`))) continue;
      const result = m[2].toLowerCase();
      if (result === "pass") return "pass";
      if (result === "fail" || result === "permerror") verdict = "fail";
    }
  }
  return verdict;
}

export function extractOtp(text: string, patterns: RegExp[]): string | null {
  for (const re of patterns) {
    const m = re.exec(text);
    if (m) return m[1] ?? m[0];
  }
  return null;
}

const imapSearchTerm = (pattern: string) => pattern.replace(/^@/, "").replace(/["\\\r\n]/g, "");

function fromQuery(patterns: string[]): string {
  const terms = patterns.map((p) => `FROM "${imapSearchTerm(p)}"`);
  return terms.reduce((acc, t) => (acc ? `OR ${acc} ${t}` : t), "");
}

const sinceDate = (d: Date) => `${d.getUTCDate()}-${["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][d.getUTCMonth()]}-${d.getUTCFullYear()}`;

/**
 * The reset link or code in one raw message, or null. A message dated well before the task began
 * is an old reset mail: following its link would fail or, worse, reset with a stale token.
 */
export async function readResetMail(raw: Uint8Array, svc: ResolvedService, since: Date): Promise<ReadMail | null> {
  const mail = await PostalMime.parse(raw);
  const sentAt = mail.date ? Date.parse(mail.date) : NaN;
  if (Number.isFinite(sentAt) && sentAt < since.getTime() - 120_000) return null;
  const results = mail.headers.filter((h) => h.key === "authentication-results").map((h) => h.value);
  // A mail its receiving server found forged for the service's domain is not read at all.
  const verdict = authVerdict(results, svc.domain);
  if (verdict === "fail") return null;
  const link = extractResetLink(mail.html, mail.text, svc);
  const otp = link ? null : extractOtp(`${mail.subject ?? ""}\n${mail.text ?? ""}`, svc.otpPatterns);
  return link || otp ? { found: { link, otp }, verdict } : null;
}

type ReadMail = { found: FoundMail; verdict: "pass" | "none" };

/**
 * Of one round's messages (newest first), the first whose DKIM or DMARC passed for the service,
 * else the first usable one: not every receiving server adds Authentication-Results.
 */
export async function preferAuthenticated<K>(keys: K[], read: (k: K) => Promise<ReadMail | null>): Promise<{ key: K; found: FoundMail } | null> {
  let fallback: { key: K; found: FoundMail } | null = null;
  for (const key of keys) {
    const r = await read(key);
    if (!r) continue;
    if (r.verdict === "pass") return { key, found: r.found };
    fallback ??= { key, found: r.found };
  }
  return fallback;
}

/** A connected mailx or maily mailbox read through its provider's API. */
export type ApiMailbox = { provider: "mailx" | "maily"; apiUrl: string; accessToken: () => Promise<string> };

/**
 * The API mailbox of a user's mailx or maily integration. Each call for a token goes through the
 * user's TokenRefresher, so a token near expiry is refreshed (single flight) before it is used.
 */
export function apiMailbox(env: Bindings, config: Config, userId: string, provider: "mailx" | "maily"): ApiMailbox {
  const p = providerConfig(config, provider);
  return {
    provider,
    apiUrl: p.apiUrl,
    accessToken: async () => {
      const t = await tokensFor(env, userId).token(provider);
      if (!t.ok) throw new Error(`mailbox token unavailable: ${t.reason}`);
      return t.accessToken;
    },
  };
}

/**
 * Watches the mailbox for the reset mail: unread messages from the service's senders that arrived
 * after the task began. For IMAP, bodies are peeked (not marked read) until the right one is found,
 * which alone is then flagged \Seen; for a mailx or maily mailbox the same happens over the API.
 * Returns null when the deadline passes or `signal` aborts (the user typed the code first).
 */
export async function waitForResetMail(config: Config, creds: ImapCredentials | ApiMailbox, svc: ResolvedService, since: Date, deadline: number, signal?: AbortSignal): Promise<FoundMail | null> {
  if ("provider" in creds) return waitForApiResetMail(creds, svc, since, deadline, signal);
  const client: ImapClient = await openImap(config, creds);
  const tried = new Set<number>();
  try {
    await client.command("SELECT INBOX");
    while (Date.now() < deadline && !signal?.aborted) {
      const uids = await client.uidSearch(`UNSEEN SINCE ${sinceDate(new Date(since.getTime() - 86_400_000))} ${fromQuery(svc.senderPatterns)}`);
      const round = uids.filter((u) => !tried.has(u)).sort((a, b) => b - a);
      const hit = await preferAuthenticated(round, async (uid) => {
        tried.add(uid);
        let raw: Uint8Array | undefined;
        await client.command(`UID FETCH ${uid} (BODY.PEEK[])`, (r) => {
          if (r.literals.length) raw = r.literals[0];
        });
        return raw ? readResetMail(raw, svc, since) : null;
      });
      if (hit) {
        await client.command(`UID STORE ${hit.key} +FLAGS.SILENT (\\Seen)`);
        return hit.found;
      }
      await new Promise((r) => setTimeout(r, Math.min(2000, Math.max(0, deadline - Date.now()))));
    }
    return null;
  } finally {
    await client.logout().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

type Candidate = { id: string; receivedAt: number };

async function api(m: ApiMailbox, path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(`${m.apiUrl}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${await m.accessToken()}` } });
  if (!res.ok) throw new Error(`mailbox API answered ${res.status}`);
  return res;
}

/**
 * The Gmail-shaped searches for a service: its registry `gmail_search_queries`, each narrowed to
 * unread mail; a service without any falls back to a search by its senders since the day before.
 */
export function gmailQueries(svc: Pick<ResolvedService, "mailboxQueries">, senders: string[], since: Date): string[] {
  const own = (svc.mailboxQueries ?? []).map((q) => q.trim()).filter(Boolean);
  if (own.length) return own.map((q) => `is:unread ${q}`);
  return [`is:unread after:${Math.floor(since.getTime() / 1000) - 86_400} (${senders.map((s) => `from:${s}`).join(" OR ")})`];
}

/** Gmail shape: the service's searches, newest first, each message once. */
async function listMailx(m: ApiMailbox, svc: ResolvedService, senders: string[], since: Date): Promise<Candidate[]> {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const q of gmailQueries(svc, senders, since)) {
    const res = await api(m, `/gmail/v1/users/me/messages?maxResults=20&q=${encodeURIComponent(q)}`);
    const page = (await res.json()) as { messages?: { id: string }[] };
    for (const x of page.messages ?? []) if (!seen.has(x.id) && seen.add(x.id)) out.push({ id: x.id, receivedAt: Number.NaN });
  }
  return out;
}

/** Graph shape: a sender search; unread and arrival time are checked on the listed metadata. */
async function listMaily(m: ApiMailbox, senders: string[], since: Date): Promise<Candidate[]> {
  const kql = senders.map((s) => `from:${s}`).join(" OR ");
  const res = await api(m, `/v1.0/me/messages?$search=${encodeURIComponent(`"${kql}"`)}&$select=id,from,receivedDateTime,isRead&$top=25`);
  const page = (await res.json()) as { value?: { id: string; isRead?: boolean; receivedDateTime?: string }[] };
  return (page.value ?? [])
    .filter((x) => x.isRead === false)
    .map((x) => ({ id: x.id, receivedAt: Date.parse(x.receivedDateTime ?? "") }))
    .filter((x) => !(x.receivedAt < since.getTime() - 120_000))
    .sort((a, b) => b.receivedAt - a.receivedAt);
}

/** The whole message as MIME, fetched only for a candidate reset mail. */
async function rawMessage(m: ApiMailbox, id: string): Promise<Uint8Array> {
  const enc = encodeURIComponent(id);
  if (m.provider === "maily") return new Uint8Array(await (await api(m, `/v1.0/me/messages/${enc}/$value`)).arrayBuffer());
  const { raw } = (await (await api(m, `/gmail/v1/users/me/messages/${enc}?format=raw`)).json()) as { raw: string };
  const bin = atob(raw.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The modify permission's one use: marking the reset mail read. */
async function markRead(m: ApiMailbox, id: string): Promise<void> {
  const enc = encodeURIComponent(id);
  const json = { "content-type": "application/json" };
  if (m.provider === "maily") await api(m, `/v1.0/me/messages/${enc}`, { method: "PATCH", headers: json, body: JSON.stringify({ isRead: true }) });
  else await api(m, `/gmail/v1/users/me/messages/${enc}/modify`, { method: "POST", headers: json, body: JSON.stringify({ removeLabelIds: ["UNREAD"] }) });
}

async function waitForApiResetMail(m: ApiMailbox, svc: ResolvedService, since: Date, deadline: number, signal?: AbortSignal): Promise<FoundMail | null> {
  const senders = svc.senderPatterns.map(imapSearchTerm).filter(Boolean);
  if (senders.length === 0) return null;
  const tried = new Set<string>();
  while (Date.now() < deadline && !signal?.aborted) {
    const candidates = m.provider === "maily" ? await listMaily(m, senders, since) : await listMailx(m, svc, senders, since);
    const hit = await preferAuthenticated(
      candidates.filter((x) => !tried.has(x.id)),
      async (c) => {
        tried.add(c.id);
        return readResetMail(await rawMessage(m, c.id), svc, since);
      },
    );
    if (hit) {
      await markRead(m, hit.key.id);
      return hit.found;
    }
    await new Promise((r) => setTimeout(r, Math.min(2000, Math.max(0, deadline - Date.now()))));
  }
  return null;
}
