import { tokensFor } from "../integrations";
import type { MailIntegrationRow } from "../../db/schema";
import type { Bindings, Config } from "../../env";
import { AppError } from "../../lib/errors";
import { headerValue, quote } from "../../lib/imap/client";
import { openImap, unsealImap } from "../integrations";
import { providerConfig, scanProvider, type MessageMeta, type OAuthProvider } from "../integrations";
import { imapCriteria, senderDomain, SUBJECT_GROUPS } from "./rules";

export type DomainHit = { count: number; lastSeen: string | null };
export type ScanOutcome = { ok: true; hits: Map<string, DomainHit> } | { ok: false; reason: "refresh_failed" | "unavailable" } | { ok: false; reason: "failed"; error: AppError };

function add(hits: Map<string, DomainHit>, m: MessageMeta) {
  const domain = senderDomain(m.from);
  if (!domain) return;
  const parsed = m.date ? new Date(m.date) : null;
  const date = parsed && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : null;
  const h = hits.get(domain);
  if (!h) hits.set(domain, { count: 1, lastSeen: date });
  else {
    h.count++;
    if (date && (!h.lastSeen || date > h.lastSeen)) h.lastSeen = date;
  }
}

/**
 * IMAP scan (rules 1 and 2): seven server-side SUBJECT searches, then one header-only fetch of
 * From and Date for the union of matches. Only the per-domain tallies are kept.
 */
export async function scanImap(config: Config, userId: string, row: MailIntegrationRow, trace?: (line: string) => void): Promise<Map<string, DomainHit>> {
  const creds = await unsealImap(config, userId, row.secret);
  const client = await openImap(config, creds, trace);
  const hits = new Map<string, DomainHit>();
  try {
    await client.examine("INBOX");
    const uids = new Set<number>();
    for (const group of SUBJECT_GROUPS) for (const uid of await client.uidSearch(imapCriteria(group, quote))) uids.add(uid);
    await client.fetchHeaderFields([...uids], ["FROM", "DATE"], (_uid, headers) => {
      const from = headerValue(headers, "from");
      if (from) add(hits, { from, date: headerValue(headers, "date") });
    });
  } finally {
    await client.logout();
  }
  return hits;
}

/** Provider API scan; the token is refreshed first (rule 9) through the user's single-flight object. */
export async function scanIntegration(env: Bindings, config: Config, userId: string, row: MailIntegrationRow): Promise<ScanOutcome> {
  if (row.provider === "imap") {
    // A mailbox that refuses the login or cannot be reached fails on its own; the others still scan.
    try {
      return { ok: true, hits: await scanImap(config, userId, row) };
    } catch (err) {
      if (err instanceof AppError) return { ok: false, reason: "failed", error: err };
      throw err;
    }
  }
  const provider = row.provider as OAuthProvider;
  const token = await tokensFor(env, userId).token(provider, true);
  if (!token.ok) return { ok: false, reason: token.reason === "unavailable" ? "unavailable" : "refresh_failed" };
  const hits = new Map<string, DomainHit>();
  for await (const m of scanProvider(providerConfig(config, provider), token.accessToken, SUBJECT_GROUPS)) add(hits, m);
  return { ok: true, hits };
}
