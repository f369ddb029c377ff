import { BUILTIN_SERVICES } from "../../kernel/registry/services";
import type { Db } from "../../db/client";
import { notFound, validationError } from "../../lib/errors";
import { normalizeHost } from "../../kernel/hostname";
import { listActiveMailboxes } from "../integrations";
import { findLive } from "../passwords";
import * as registryRepo from "../registry";
import { resolveService, type ResolvedService } from "../registry";

export type ChatRequest = {
  message: string;
  serviceId?: string;
  passwordId?: string;
  email?: string;
};

/** `email` is null only when the user has no active mailbox (task creation then answers 422). */
export type ChatTarget = {
  svc: ResolvedService;
  serviceUrl: string;
  email: string | null;
  passwordId?: string;
};

const URL_IN_MESSAGE = /https?:\/\/[^\s<>"'`]+/i;
const EMAIL_IN_MESSAGE = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
const DOMAIN_IN_MESSAGE = /\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63})\b/gi;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const httpUrl = (s: string | null | undefined) => (s && /^https?:\/\//i.test(s) ? s : null);

/** Where the browser starts: the message's own URL, else the service's reset page, else its login page. */
function startUrl(svc: ResolvedService, explicit: string | null): string {
  if (explicit) return explicit;
  if (svc.known) return svc.resetUrl ?? svc.loginUrl;
  return `https://${svc.domain}/`;
}

/**
 * The service a free-text message names: a URL first, then a domain, then a service name from the
 * registry (built-in names and active overrides; the longest name wins, so "Google Cloud" beats
 * "Google"). Names match as whole words, case-insensitively.
 */
async function fromMessage(
  db: Db,
  message: string,
): Promise<{ svc: ResolvedService; url: string | null } | null> {
  const url = URL_IN_MESSAGE.exec(message)?.[0].replace(/[.,;:!?)]+$/, "");
  if (url && normalizeHost(url)) return { svc: await resolveService(db, url), url };
  const withoutEmails = message.replace(new RegExp(EMAIL_IN_MESSAGE.source, "g"), " ");
  for (const m of withoutEmails.matchAll(DOMAIN_IN_MESSAGE)) {
    const host = normalizeHost(m[1]);
    if (host) return { svc: await resolveService(db, host), url: null };
  }
  const names = [
    ...BUILTIN_SERVICES.map((s) => ({ name: s.name, domain: s.domain })),
    ...(await registryRepo.activeOverrides(db)).map((o) => ({ name: o.name, domain: o.domain })),
  ].sort((a, b) => b.name.length - a.name.length);
  const hit = names.find((n) =>
    new RegExp(
      `(^|[^\\p{L}\\p{N}])${escapeRe(n.name)}($|[^\\p{L}\\p{N}])`,
      n.name.length <= 3 ? "u" : "iu",
    ).test(withoutEmails),
  );
  return hit ? { svc: await resolveService(db, hit.domain), url: null } : null;
}

/**
 * Turns a chat request into what a reset task needs. Every refusal happens here, before the
 * stream starts: another user's (or a deleted) entry and an unknown serviceId are 404; a message
 * that names no service is 400 on `message`.
 */
/** `db` is the caller's shard; `registry` the directory, where the admin's overrides live (docs/decisions/scale.md, "Scale: shards, a directory, many databases"). */
export async function resolveChatTarget(
  db: Db,
  registry: Db,
  userId: string,
  req: ChatRequest,
): Promise<ChatTarget> {
  const entry = req.passwordId ? await findLive(db, userId, req.passwordId) : undefined;
  if (req.passwordId && !entry) throw notFound("Password");

  let svc: ResolvedService | null = null;
  let explicitUrl: string | null = null;
  if (req.serviceId) {
    const domain = normalizeHost(req.serviceId);
    svc = domain ? await resolveService(registry, domain) : null;
    if (!svc || !svc.known) throw notFound("Service");
  } else if (entry) {
    const host = entry.host ?? normalizeHost(entry.url) ?? normalizeHost(entry.website);
    if (!host)
      throw validationError("Request validation failed", [
        { field: "passwordId", message: "the entry has no website to reset" },
      ]);
    svc = await resolveService(registry, host);
    explicitUrl = svc.known ? null : httpUrl(entry.url);
  } else {
    const found = await fromMessage(registry, req.message);
    if (found) ({ svc, url: explicitUrl } = found);
  }
  if (!svc) {
    throw validationError("Request validation failed", [
      {
        field: "message",
        message: "name the service to reset: its name, its domain or a link to its sign-in page",
      },
    ]);
  }

  const email =
    req.email ?? EMAIL_IN_MESSAGE.exec(req.message)?.[0] ?? (await mailboxAddress(db, userId));
  return {
    svc,
    serviceUrl: startUrl(svc, explicitUrl),
    email: email?.toLowerCase() ?? null,
    ...(req.passwordId ? { passwordId: req.passwordId } : {}),
  };
}

/** Without an address in the request, the account is taken to be the connected mailbox's own. */
async function mailboxAddress(db: Db, userId: string): Promise<string | null> {
  const boxes = await listActiveMailboxes(db, userId);
  return (boxes.find((i) => i.provider === "imap") ?? boxes[0])?.email ?? null;
}
