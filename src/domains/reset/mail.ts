import PostalMime from "postal-mime";
import { MailboxUnavailable, type Mailbox } from "../integrations";
import type { ResolvedService } from "../registry";
import { FlowFailure } from "./browser-flow";

const POLL_MS = 2000;

/**
 * `mailAuthentication` says what the mail's Authentication-Results said for the service's domain:
 * "pass", or "none" when the mailbox gave no verdict at all (a code typed by the user has none).
 */
export type FoundMail = {
  link: string | null;
  otp: string | null;
  mailAuthentication?: "pass" | "none";
};

const URL_IN_TEXT = /https?:\/\/[^\s"'<>()]+/gi;
const HREF = /href\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const RESETISH = /reset|password|recover|token|verify/i;

const decodeEntities = (s: string) =>
  s
    .replace(/&amp;/g, "&")
    .replace(/&#x2F;/gi, "/")
    .replace(/&#47;/g, "/")
    .replace(/&quot;/g, '"');

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
export function extractResetLink(
  html: string | undefined,
  text: string | undefined,
  svc: Pick<ResolvedService, "linkPatterns" | "domain">,
): string | null {
  const candidates: string[] = [];
  for (const m of (html ?? "").matchAll(HREF)) candidates.push(decodeEntities(m[1] ?? m[2] ?? ""));
  for (const m of (text ?? "").matchAll(URL_IN_TEXT))
    candidates.push(m[0].replace(/[.,;:!?]+$/, ""));
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
    for (const part of header
      .replace(/\([^)]*\)/g, " ")
      .split(";")
      .slice(1)) {
      const m = /^\s*(dkim|dmarc)\s*=\s*(\w+)/i.exec(part);
      if (!m) continue;
      const id = /\bheader\.(?:d|from|i)\s*=\s*"?([^\s";]+)/i
        .exec(part)?.[1]
        ?.toLowerCase()
        .replace(/^.*@/, "");
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

/**
 * The reset link or code in one raw message, or null. A message dated well before the task began
 * is an old reset mail: following its link would fail or, worse, reset with a stale token.
 *
 * A one-time code carries no domain of its own (a link must point at the service's domain, a code
 * points nowhere), so a forged mail could feed a wrong one: a code is taken only from mail whose
 * DKIM or DMARC passed for the service's domain. Where the mailbox gives no verdict at all (no
 * Authentication-Results header: a self-run server that adds none), the code is taken and the
 * task says so; where it gives verdicts but none passes for the service, the code is not taken.
 */
export async function readResetMail(
  raw: Uint8Array,
  svc: ResolvedService,
  since: Date,
): Promise<ReadMail | null> {
  const mail = await PostalMime.parse(raw);
  const sentAt = mail.date ? Date.parse(mail.date) : NaN;
  if (Number.isFinite(sentAt) && sentAt < since.getTime() - 120_000) return null;
  const results = mail.headers
    .filter((h) => h.key === "authentication-results")
    .map((h) => h.value);
  // A mail its receiving server found forged for the service's domain is not read at all.
  const verdict = authVerdict(results, svc.domain);
  if (verdict === "fail") return null;
  const link = extractResetLink(mail.html, mail.text, svc);
  if (link) return { found: { link, otp: null, mailAuthentication: verdict }, verdict };
  if (verdict !== "pass" && results.length > 0) return null;
  const otp = extractOtp(`${mail.subject ?? ""}\n${mail.text ?? ""}`, svc.otpPatterns);
  return otp ? { found: { link: null, otp, mailAuthentication: verdict }, verdict } : null;
}

type ReadMail = { found: FoundMail; verdict: "pass" | "none" };

/**
 * Of one round's messages (newest first), the first whose DKIM or DMARC passed for the service,
 * else the first usable one: not every receiving server adds Authentication-Results.
 */
export async function preferAuthenticated<K>(
  keys: K[],
  read: (k: K) => Promise<ReadMail | null>,
): Promise<{ key: K; found: FoundMail } | null> {
  let fallback: { key: K; found: FoundMail } | null = null;
  for (const key of keys) {
    const r = await read(key);
    if (!r) continue;
    if (r.verdict === "pass") return { key, found: r.found };
    fallback ??= { key, found: r.found };
  }
  return fallback;
}

/**
 * Watches the mailbox for the reset mail: unread messages from the service's senders that arrived
 * after the task began. Bodies are read without marking them (IMAP BODY.PEEK, the APIs' plain
 * reads) until the right one is found, which alone is then marked read. A service with no sender
 * to search by gets no mail read at all. Returns null when the deadline passes or `signal` aborts
 * (the user typed the code first).
 */
export async function waitForResetMail(
  mailbox: Mailbox,
  svc: ResolvedService,
  since: Date,
  deadline: number,
  signal?: AbortSignal,
): Promise<FoundMail | null> {
  if (!svc.senderPatterns.some((p) => p.replace(/^@/, "").trim())) return null;
  const tried = new Set<string>();
  const query = { senders: svc.senderPatterns, since, searches: svc.mailboxQueries ?? [] };
  let failing: MailboxUnavailable | null = null;
  let backoff = POLL_MS;
  try {
    while (Date.now() < deadline && !signal?.aborted) {
      let pause = POLL_MS;
      try {
        const round = (await mailbox.unread(query)).filter((r) => !tried.has(r.id));
        const hit = await preferAuthenticated(round, async (ref) => {
          const raw = await mailbox.raw(ref.id);
          tried.add(ref.id);
          return raw ? readResetMail(raw, svc, since) : null;
        });
        if (hit) {
          await mailbox.markRead(hit.key.id);
          return hit.found;
        }
        failing = null;
      } catch (err) {
        // A busy or failing provider is waited out (its Retry-After, else the poll doubling up to
        // 30 s) until the deadline; the mail may still be read once it answers again.
        if (!(err instanceof MailboxUnavailable)) throw err;
        backoff = failing ? Math.min(30_000, backoff * 2) : POLL_MS * 2;
        pause = Math.max((err.retryAfterSeconds ?? 0) * 1000, backoff);
        failing = err;
      }
      await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
    }
    if (failing && !signal?.aborted)
      throw new FlowFailure(
        `the mailbox provider is not answering (${failing.status ? `HTTP ${failing.status}` : "no answer"}); the reset mail could not be read`,
      );
    return null;
  } finally {
    // An IMAP session is not held open across the rest of the run; the next wait opens its own.
    await mailbox.close();
  }
}
