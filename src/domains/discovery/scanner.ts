import type { MailIntegrationRow } from "../../db/schema";
import type { Bindings, Config } from "../../env";
import { AppError } from "../../lib/errors";
import {
  MailboxUnavailable,
  openMailbox,
  providerConfig,
  providerMailbox,
  tokensFor,
  type Mailbox,
  type MessageMeta,
  type OAuthProvider,
} from "../integrations";
import { senderDomain, SUBJECT_GROUPS } from "./rules";

export type DomainHit = { count: number; lastSeen: string | null };
export type ScanOutcome =
  | { ok: true; hits: Map<string, DomainHit> }
  | { ok: false; reason: "refresh_failed" }
  | { ok: false; reason: "unavailable"; retryAfterSeconds?: number | null }
  | { ok: false; reason: "failed"; error: AppError };

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
 * Rules 1 and 2 through the mailbox's own search: seven subject searches on the server, then From
 * and Date only for the union of matches. Only the per-domain tallies are kept.
 */
async function tally(mailbox: Mailbox): Promise<Map<string, DomainHit>> {
  const hits = new Map<string, DomainHit>();
  try {
    for await (const m of mailbox.subjects(SUBJECT_GROUPS)) add(hits, m);
  } finally {
    await mailbox.close();
  }
  return hits;
}

/** Provider API scan; the token is refreshed first (rule 9) through the user's single-flight object. */
export async function scanIntegration(
  env: Bindings,
  config: Config,
  userId: string,
  row: MailIntegrationRow,
): Promise<ScanOutcome> {
  if (row.provider === "imap") {
    // A mailbox that refuses the login or cannot be reached fails on its own; the others still scan.
    try {
      return { ok: true, hits: await tally(await openMailbox(env, config, userId, row)) };
    } catch (err) {
      if (err instanceof AppError) return { ok: false, reason: "failed", error: err };
      throw err;
    }
  }
  const provider = row.provider as OAuthProvider;
  const token = await tokensFor(env, userId).token(provider, true);
  if (!token.ok)
    return { ok: false, reason: token.reason === "unavailable" ? "unavailable" : "refresh_failed" };
  try {
    return {
      ok: true,
      hits: await tally(
        providerMailbox(providerConfig(config, provider), async () => token.accessToken),
      ),
    };
  } catch (err) {
    // Busy or failing after the adapter's own retries: reported, the mailbox stays connected.
    if (err instanceof MailboxUnavailable)
      return { ok: false, reason: "unavailable", retryAfterSeconds: err.retryAfterSeconds };
    throw err;
  }
}
