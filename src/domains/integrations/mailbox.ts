import type { Bindings, Config } from "../../env";
import { headerValue, quote, type ImapClient } from "../../lib/imap/client";
import { openImap, unsealImap, type ImapCredentials } from "./imap";
import { providerConfig, type ProviderConfig } from "./providers";
import { tokensFor } from "./tokens";
import { logJson } from "../../lib/log";

/**
 * One way to read a connected mailbox, whatever carries it: IMAP (RFC 3501), a Gmail-shaped API
 * (mailx) or a Graph-shaped API (maily). Discovery reads senders and dates by subject; a reset reads
 * one unread message in full and marks only that one read. Each adapter speaks its own search syntax
 * so the searching happens on the mail server, never by downloading the mailbox.
 */
export interface Mailbox {
  readonly kind: "imap" | "mailx" | "maily";
  /** From and Date of the messages whose subject holds a phrase of any group; nothing is changed. */
  subjects(groups: string[][]): AsyncGenerator<MessageMeta>;
  /** Unread messages from these senders, newest first (ids are opaque to the caller). */
  unread(query: UnreadQuery): Promise<MailRef[]>;
  /** The whole message as MIME, or null when it is gone. */
  raw(id: string): Promise<Uint8Array | null>;
  markRead(id: string): Promise<void>;
  close(): Promise<void>;
}

export type MessageMeta = { from: string; date: string | null };
/** `receivedAt` is NaN where the listing does not carry it (the message's own Date decides then). */
export type MailRef = { id: string; receivedAt: number };
/**
 * `senders`: addresses or domains; `since`: the caller's start (a day's slack is searched, since
 * IMAP SEARCH dates have no time). `searches`: Gmail-syntax searches the service registry declares,
 * used by the Gmail-shaped adapter in place of the sender search.
 */
export type UnreadQuery = { senders: string[]; since: Date; searches?: string[] };

const DAY = 86_400_000;
/** A listed message that arrived well before `since` is older than the request: not a candidate. */
const SLACK = 120_000;

/** A stored mailbox row (imap: sealed credentials; mailx or maily: tokens through the refresher). */
export async function openMailbox(
  env: Bindings,
  config: Config,
  userId: string,
  box: { provider: string; secret: string },
): Promise<Mailbox> {
  if (box.provider === "imap")
    return imapMailbox(config, await unsealImap(config, userId, box.secret));
  if (box.provider === "mailx" || box.provider === "maily")
    return apiMailbox(env, config, userId, box.provider);
  throw new Error(`${box.provider} has no mailbox`);
}

/**
 * The API mailbox of a user's mailx or maily integration. Each call for a token goes through the
 * user's TokenRefresher, so a token near expiry is refreshed (single flight) before it is used.
 */
export function apiMailbox(
  env: Bindings,
  config: Config,
  userId: string,
  provider: "mailx" | "maily",
): Mailbox {
  return providerMailbox(providerConfig(config, provider), async () => {
    const t = await tokensFor(env, userId).token(provider);
    if (!t.ok) throw new Error(`mailbox token unavailable: ${t.reason}`);
    return t.accessToken;
  });
}

/** A mailx or maily mailbox reached with the given access token. */
export function providerMailbox(p: ProviderConfig, accessToken: () => Promise<string>): Mailbox {
  if (p.name === "mailx") return new GmailMailbox(p.apiUrl, accessToken);
  if (p.name === "maily") return new GraphMailbox(p.apiUrl, accessToken);
  throw new Error(`${p.name} has no mailbox`);
}

/** IMAP SEARCH criteria for a phrase group: OR of SUBJECT keys (RFC 3501 section 6.4.4). */
export function imapCriteria(group: string[]): string {
  const keys = group.map((p) => `SUBJECT ${quote(p)}`);
  return keys.reduceRight((acc, k) => (acc ? `OR ${k} ${acc}` : k), "");
}

const searchTerm = (sender: string) => sender.replace(/^@/, "").replace(/["\\\r\n]/g, "");

function fromCriteria(senders: string[]): string {
  return senders
    .map((s) => `FROM "${searchTerm(s)}"`)
    .reduce((acc, t) => (acc ? `OR ${acc} ${t}` : t), "");
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const imapDate = (d: Date) => `${d.getUTCDate()}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()}`;

/**
 * The session is opened on first use: read-only (EXAMINE) for a scan, read-write (SELECT) for a
 * reset, which alone sets \Seen, and only on the message it took.
 */
export function imapMailbox(
  config: Config,
  creds: ImapCredentials,
  trace?: (line: string) => void,
): Mailbox {
  let client: ImapClient | undefined;
  let mode: "examine" | "select" | undefined;
  const session = async (want: "examine" | "select") => {
    client ??= await openImap(config, creds, trace);
    if (mode !== want && mode !== "select") {
      if (want === "examine") await client.examine("INBOX");
      else await client.command("SELECT INBOX");
      mode = want;
    }
    return client;
  };
  return {
    kind: "imap",
    async *subjects(groups) {
      const c = await session("examine");
      const uids = new Set<number>();
      for (const group of groups)
        for (const uid of await c.uidSearch(imapCriteria(group))) uids.add(uid);
      const metas: MessageMeta[] = [];
      await c.fetchHeaderFields([...uids], ["FROM", "DATE"], (_uid, headers) => {
        const from = headerValue(headers, "from");
        if (from) metas.push({ from, date: headerValue(headers, "date") });
      });
      yield* metas;
    },
    async unread({ senders, since }) {
      const terms = senders.map(searchTerm).filter(Boolean);
      if (terms.length === 0) return [];
      const c = await session("select");
      const uids = await c.uidSearch(
        `UNSEEN SINCE ${imapDate(new Date(since.getTime() - DAY))} ${fromCriteria(terms)}`,
      );
      return uids.sort((a, b) => b - a).map((uid) => ({ id: String(uid), receivedAt: Number.NaN }));
    },
    async raw(id) {
      const c = await session("select");
      let raw: Uint8Array | null = null;
      await c.command(`UID FETCH ${Number(id)} (BODY.PEEK[])`, (r) => {
        if (r.literals.length) raw = r.literals[0];
      });
      return raw;
    },
    async markRead(id) {
      await (await session("select")).command(`UID STORE ${Number(id)} +FLAGS.SILENT (\\Seen)`);
    },
    async close() {
      if (!client) return;
      await client.logout().catch(() => undefined);
      await client.close().catch(() => undefined);
      client = undefined;
      mode = undefined;
    },
  };
}

/** Maps with at most `limit` calls in flight, keeping the input order. */
async function mapLimited<T, R>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The provider could not answer now: 429 or 5xx (RFC 9110 section 15.6), or no answer at all
 * (`status` 0). `retryAfterSeconds` is its Retry-After (section 10.2.3) when it gave one.
 */
export class MailboxUnavailable extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterSeconds: number | null,
  ) {
    super(status ? `mailbox API answered ${status}` : "mailbox API did not answer");
  }
}

/** Retry-After as delay-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

/** Attempts of one API call; waits between them are the provider's Retry-After when it is short. */
const ATTEMPTS = 3;
const BACKOFF_MS = [250, 1000];
/** A longer Retry-After is not waited out inside a request: the caller reports it instead. */
const MAX_INLINE_WAIT_S = 5;

abstract class HttpMailbox {
  constructor(
    protected readonly apiUrl: string,
    private readonly accessToken: () => Promise<string>,
  ) {}

  /**
   * One API call, retried with backoff when the provider is busy or failing (a mail API under
   * load answers 429 and 503 routinely); other failures are not retried.
   */
  protected async call(url: string, init: RequestInit = {}): Promise<Response> {
    const target = url.startsWith("http") ? url : `${this.apiUrl}${url}`;
    for (let attempt = 1; ; attempt++) {
      let failure: MailboxUnavailable;
      try {
        const res = await fetch(target, {
          ...init,
          headers: { ...init.headers, authorization: `Bearer ${await this.accessToken()}` },
        });
        if (res.ok) return res;
        if (res.status !== 429 && res.status < 500)
          throw new Error(`mailbox API answered ${res.status}`);
        await res.body?.cancel();
        failure = new MailboxUnavailable(
          res.status,
          retryAfterSeconds(res.headers.get("retry-after")),
        );
      } catch (err) {
        if (!(err instanceof TypeError)) throw err;
        failure = new MailboxUnavailable(0, null);
      }
      const wait =
        failure.retryAfterSeconds !== null
          ? failure.retryAfterSeconds * 1000
          : BACKOFF_MS[attempt - 1];
      if (attempt >= ATTEMPTS || wait === undefined || wait > MAX_INLINE_WAIT_S * 1000)
        throw failure;
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  protected async json<T>(url: string): Promise<T> {
    return (await (await this.call(url, { headers: { accept: "application/json" } })).json()) as T;
  }

  async close(): Promise<void> {}
}

const GMAIL_PAGE = 500;
/** Metadata requests in flight at once for the Gmail-shaped scan (one request per message). */
export const GMAIL_METADATA_CONCURRENCY = 10;
const gmailTerm = (phrase: string) => `subject:(${phrase.includes(" ") ? `"${phrase}"` : phrase})`;

/**
 * The Gmail-shaped searches for a reset: the registry's searches, each narrowed to unread mail; a
 * service without any falls back to a search by its senders since the day before.
 */
export function gmailQueries(searches: string[], senders: string[], since: Date): string[] {
  const own = searches.map((q) => q.trim()).filter(Boolean);
  if (own.length) return own.map((q) => `is:unread ${q}`);
  return [
    `is:unread after:${Math.floor(since.getTime() / 1000) - DAY / 1000} (${senders.map((s) => `from:${s}`).join(" OR ")})`,
  ];
}

class GmailMailbox extends HttpMailbox implements Mailbox {
  readonly kind = "mailx";

  /**
   * One server-side subject query per phrase group, then each message's From and Date only
   * (format=metadata with metadataHeaders, so no body or other header is transferred), a bounded
   * number at a time. A message matched by two groups is read once.
   */
  async *subjects(groups: string[][]): AsyncGenerator<MessageMeta> {
    const seen = new Set<string>();
    for (const group of groups) {
      let pageToken: string | undefined;
      do {
        const list = new URL(`${this.apiUrl}/gmail/v1/users/me/messages`);
        list.searchParams.set("q", group.map(gmailTerm).join(" OR "));
        list.searchParams.set("maxResults", String(GMAIL_PAGE));
        if (pageToken) list.searchParams.set("pageToken", pageToken);
        const page = await this.json<{ messages?: { id: string }[]; nextPageToken?: string }>(
          list.toString(),
        );
        const fresh = (page.messages ?? [])
          .map((m) => m.id)
          .filter((id) => !seen.has(id) && seen.add(id));
        const metas = await mapLimited(fresh, GMAIL_METADATA_CONCURRENCY, (id) =>
          this.json<{ payload?: { headers?: { name: string; value: string }[] } }>(
            `/gmail/v1/users/me/messages/${encodeURIComponent(id)}?format=metadata&metadataHeaders=From&metadataHeaders=Date`,
          ),
        );
        for (const meta of metas) {
          const header = (n: string) =>
            meta.payload?.headers?.find((h) => h.name.toLowerCase() === n)?.value ?? null;
          const from = header("from");
          if (from) yield { from, date: header("date") };
        }
        pageToken = page.nextPageToken;
      } while (pageToken);
    }
  }

  async unread({ senders, since, searches = [] }: UnreadQuery): Promise<MailRef[]> {
    const terms = senders.map(searchTerm).filter(Boolean);
    if (terms.length === 0) return [];
    const seen = new Set<string>();
    const out: MailRef[] = [];
    for (const q of gmailQueries(searches, terms, since)) {
      const page = await this.json<{ messages?: { id: string }[] }>(
        `/gmail/v1/users/me/messages?maxResults=20&q=${encodeURIComponent(q)}`,
      );
      for (const x of page.messages ?? [])
        if (!seen.has(x.id) && seen.add(x.id)) out.push({ id: x.id, receivedAt: Number.NaN });
    }
    return out;
  }

  async raw(id: string): Promise<Uint8Array> {
    const { raw } = await this.json<{ raw: string }>(
      `/gmail/v1/users/me/messages/${encodeURIComponent(id)}?format=raw`,
    );
    const bin = atob(raw.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  }

  /** The modify permission's one use: marking the reset mail read. */
  async markRead(id: string): Promise<void> {
    await this.call(`/gmail/v1/users/me/messages/${encodeURIComponent(id)}/modify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ removeLabelIds: ["UNREAD"] }),
    });
  }
}

const GRAPH_PAGE = 100;

class GraphMailbox extends HttpMailbox implements Mailbox {
  readonly kind = "maily";

  /**
   * A paging link is followed with the bearer token only when it stays on the API's origin, so a
   * response cannot send the token elsewhere; any other link ends the listing.
   */
  private sameOrigin(link: string | undefined): string | undefined {
    if (!link) return undefined;
    try {
      if (new URL(link).origin === new URL(this.apiUrl).origin) return link;
    } catch {
      // Not a URL: stop paging.
    }
    logJson("warn", "provider paging link to another origin ignored");
    return undefined;
  }

  /** One $search per phrase group, selecting only from and receivedDateTime. */
  async *subjects(groups: string[][]): AsyncGenerator<MessageMeta> {
    const seen = new Set<string>();
    for (const group of groups) {
      const kql = group.map((phrase) => `subject:"${phrase}"`).join(" OR ");
      let next: string | undefined =
        `/v1.0/me/messages?$search=${encodeURIComponent(`"${kql.replace(/"/g, '\\"')}"`)}&$select=from,receivedDateTime&$top=${GRAPH_PAGE}`;
      while (next) {
        const page: {
          value?: {
            id: string;
            from?: { emailAddress?: { address?: string } };
            receivedDateTime?: string;
          }[];
          "@odata.nextLink"?: string;
        } = await this.json(next);
        for (const m of page.value ?? []) {
          if (seen.has(m.id)) continue;
          seen.add(m.id);
          const address = m.from?.emailAddress?.address;
          if (address) yield { from: address, date: m.receivedDateTime ?? null };
        }
        next = this.sameOrigin(page["@odata.nextLink"]);
      }
    }
  }

  /** A sender search; unread and arrival time are checked on the listed metadata. */
  async unread({ senders, since }: UnreadQuery): Promise<MailRef[]> {
    const terms = senders.map(searchTerm).filter(Boolean);
    if (terms.length === 0) return [];
    const kql = terms.map((s) => `from:${s}`).join(" OR ");
    const page = await this.json<{
      value?: { id: string; isRead?: boolean; receivedDateTime?: string }[];
    }>(
      `/v1.0/me/messages?$search=${encodeURIComponent(`"${kql}"`)}&$select=id,from,receivedDateTime,isRead&$top=25`,
    );
    return (page.value ?? [])
      .filter((x) => x.isRead === false)
      .map((x) => ({ id: x.id, receivedAt: Date.parse(x.receivedDateTime ?? "") }))
      .filter((x) => !(x.receivedAt < since.getTime() - SLACK))
      .sort((a, b) => b.receivedAt - a.receivedAt);
  }

  async raw(id: string): Promise<Uint8Array> {
    return new Uint8Array(
      await (await this.call(`/v1.0/me/messages/${encodeURIComponent(id)}/$value`)).arrayBuffer(),
    );
  }

  async markRead(id: string): Promise<void> {
    await this.call(`/v1.0/me/messages/${encodeURIComponent(id)}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ isRead: true }),
    });
  }
}
