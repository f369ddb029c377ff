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

/**
 * The link extraction function (never overridden, spec "Resolution"): links from the HTML part
 * first, then the text part; the first that matches one of the service's link patterns wins,
 * else the first on the service's or sender's domain that looks like a reset link.
 */
export function extractResetLink(html: string | undefined, text: string | undefined, svc: Pick<ResolvedService, "linkPatterns" | "domain">, senderDomain?: string): string | null {
  const candidates: string[] = [];
  for (const m of (html ?? "").matchAll(HREF)) candidates.push(decodeEntities(m[1] ?? m[2] ?? ""));
  for (const m of (text ?? "").matchAll(URL_IN_TEXT)) candidates.push(m[0].replace(/[.,;:!?]+$/, ""));
  const urls = candidates.filter((u) => /^https?:\/\//i.test(u));
  for (const re of svc.linkPatterns) {
    const hit = urls.find((u) => re.test(u));
    if (hit) return hit;
  }
  const hosts = [svc.domain, senderDomain].filter(Boolean) as string[];
  return (
    urls.find((u) => {
      try {
        const h = new URL(u).hostname.toLowerCase();
        return hosts.some((d) => h === d || h.endsWith(`.${d}`)) && RESETISH.test(u);
      } catch {
        return false;
      }
    }) ?? null
  );
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
async function readResetMail(raw: Uint8Array, svc: ResolvedService, since: Date): Promise<FoundMail | null> {
  const mail = await PostalMime.parse(raw);
  const sentAt = mail.date ? Date.parse(mail.date) : NaN;
  if (Number.isFinite(sentAt) && sentAt < since.getTime() - 120_000) return null;
  const sender = mail.from?.address?.split("@")[1]?.toLowerCase();
  const link = extractResetLink(mail.html, mail.text, svc, sender);
  const otp = link ? null : extractOtp(`${mail.subject ?? ""}\n${mail.text ?? ""}`, svc.otpPatterns);
  return link || otp ? { link, otp } : null;
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
      for (const uid of uids.filter((u) => !tried.has(u)).sort((a, b) => b - a)) {
        tried.add(uid);
        let raw: Uint8Array | undefined;
        await client.command(`UID FETCH ${uid} (BODY.PEEK[])`, (r) => {
          if (r.literals.length) raw = r.literals[0];
        });
        if (!raw) continue;
        const found = await readResetMail(raw, svc, since);
        if (found) {
          await client.command(`UID STORE ${uid} +FLAGS.SILENT (\\Seen)`);
          return found;
        }
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
    for (const c of candidates.filter((x) => !tried.has(x.id))) {
      tried.add(c.id);
      const found = await readResetMail(await rawMessage(m, c.id), svc, since);
      if (found) {
        await markRead(m, c.id);
        return found;
      }
    }
    await new Promise((r) => setTimeout(r, Math.min(2000, Math.max(0, deadline - Date.now()))));
  }
  return null;
}
