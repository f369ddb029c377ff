import PostalMime from "postal-mime";
import type { Config } from "../../env";
import { ImapClient } from "../../lib/imap/client";
import { openImap, type ImapCredentials } from "../integrations/imap";
import type { ResolvedService } from "../registry/resolve";

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
 * Watches the IMAP inbox for the reset mail: unseen messages from the service's senders that
 * arrived after the task began. Bodies are peeked (not marked read) until the right one is found,
 * which alone is then flagged \Seen. Returns null when the deadline passes or `signal` aborts
 * (the user typed the code first).
 */
export async function waitForResetMail(config: Config, creds: ImapCredentials, svc: ResolvedService, since: Date, deadline: number, signal?: AbortSignal): Promise<FoundMail | null> {
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
        const mail = await PostalMime.parse(raw);
        const sentAt = mail.date ? Date.parse(mail.date) : NaN;
        if (Number.isFinite(sentAt) && sentAt < since.getTime() - 120_000) continue;
        const sender = mail.from?.address?.split("@")[1]?.toLowerCase();
        const link = extractResetLink(mail.html, mail.text, svc, sender);
        const otp = link ? null : extractOtp(`${mail.subject ?? ""}\n${mail.text ?? ""}`, svc.otpPatterns);
        if (link || otp) {
          await client.command(`UID STORE ${uid} +FLAGS.SILENT (\\Seen)`);
          return { link, otp };
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
