import PostalMime from "postal-mime";
import { MailboxUnavailable, type Mailbox } from "../integrations";
import type { ResolvedService } from "../registry";
import { FlowFailure } from "./browser-flow";

const POLL_MS = 2000;

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

/**
 * Watches the mailbox for the reset mail: unread messages from the service's senders that arrived
 * after the task began. Bodies are read without marking them (IMAP BODY.PEEK, the APIs' plain
 * reads) until the right one is found, which alone is then marked read. A service with no sender
 * to search by gets no mail read at all. Returns null when the deadline passes or `signal` aborts
 * (the user typed the code first).
 */
export async function waitForResetMail(mailbox: Mailbox, svc: ResolvedService, since: Date, deadline: number, signal?: AbortSignal): Promise<FoundMail | null> {
  if (!svc.senderPatterns.some((p) => p.replace(/^@/, "").trim())) return null;
  const tried = new Set<string>();
  const query = { senders: svc.senderPatterns, since, searches: svc.mailboxQueries ?? [] };
  let failing: MailboxUnavailable | null = null;
  let backoff = POLL_MS;
  try {
    while (Date.now() < deadline && !signal?.aborted) {
      let pause = POLL_MS;
      try {
        for (const ref of (await mailbox.unread(query)).filter((r) => !tried.has(r.id))) {
          const raw = await mailbox.raw(ref.id);
          tried.add(ref.id);
          const found = raw && (await readResetMail(raw, svc, since));
          if (found) {
            await mailbox.markRead(ref.id);
            return found;
          }
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
    if (failing && !signal?.aborted) throw new FlowFailure(`the mailbox provider is not answering (${failing.status ? `HTTP ${failing.status}` : "no answer"}); the reset mail could not be read`);
    return null;
  } finally {
    // An IMAP session is not held open across the rest of the run; the next wait opens its own.
    await mailbox.close();
  }
}
