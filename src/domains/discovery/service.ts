import { entryIdClaims, writeMinted } from "../../db/entry-ids";
import { advanceClock } from "../../db/change-clock";
import { announceClocks } from "../../db/clock-announce";
import { rowsChanged } from "../../db/d1";
import type { Db } from "../../db/client";
import type { DiscoveredAccountRow } from "../../db/schema";
import type { Bindings, Config } from "../../env";
import { randomId } from "../../lib/crypto";
import { AppError, ErrorCode, notFound, validationError } from "../../lib/errors";
import { normalizeHost } from "../../kernel/hostname";
import type { PageParams } from "../../kernel/pagination";
import * as integrationsRepo from "../integrations";
import { PLACEHOLDER_ENCRYPTION_VERSION } from "../passwords";
import * as repo from "./repo";
import { serviceInfo } from "./rules";
import { scanIntegration, type DomainHit } from "./scanner";

export function toAccount(row: DiscoveredAccountRow) {
  return {
    id: row.id,
    domain: row.domain,
    serviceName: row.serviceName,
    serviceIcon: row.serviceIcon,
    serviceColor: row.serviceColor,
    category: row.category,
    loginUrl: row.loginUrl,
    inVault: row.inVault,
    vaultPasswordId: row.vaultPasswordId,
    dismissed: row.dismissed,
    oauthLikely: row.oauthLikely,
    emailCount: row.emailCount,
    lastSeen: row.lastSeenAt,
    sourceEmail: row.sourceEmail,
  };
}

export function statsOf(rows: DiscoveredAccountRow[]) {
  const inVault = rows.filter((r) => r.inVault).length;
  return {
    total: rows.length,
    inVault,
    notInVault: rows.length - inVault,
    oauthLikely: rows.filter((r) => r.oauthLikely).length,
    dismissed: rows.filter((r) => r.dismissed).length,
  };
}

/** Rule 6: the first vault entry that belongs to the domain or names the service. */
export function matchEntry(
  domain: string,
  serviceName: string,
  entries: repo.VaultRef[],
): repo.VaultRef | undefined {
  const name = serviceName.toLowerCase();
  return entries.find((e) => {
    const hosts = [normalizeHost(e.website), normalizeHost(e.url)];
    if (hosts.includes(domain)) return true;
    if (name && e.name.toLowerCase().includes(name)) return true;
    return [e.website, e.url].some((v) => !!v && v.toLowerCase().includes(domain));
  });
}

/**
 * Rule 7: an entry whose username is a connected mailbox address and whose password is empty
 * suggests an OAuth sign-in. Only placeholder entries (-1) expose a username and are known to
 * hold no password; a V3 entry's username and password are sealed client-side and cannot be read.
 */
function oauthLikely(entry: repo.VaultRef | undefined, emails: Set<string>): boolean {
  return (
    !!entry &&
    entry.encryptionVersion === PLACEHOLDER_ENCRYPTION_VERSION &&
    !!entry.username &&
    emails.has(entry.username.trim().toLowerCase())
  );
}

export type Family = "original" | "unified";

export class DiscoveryService {
  constructor(
    private readonly db: Db,
    private readonly env: Bindings,
    private readonly config: Config,
  ) {}

  async list(userId: string, includeDismissed: boolean, page: PageParams) {
    const [rows, stats] = await Promise.all([
      repo.pageAccounts(this.db, userId, includeDismissed, page),
      repo.accountStats(this.db, userId),
    ]);
    return { accounts: rows.items.map(toAccount), stats, next_cursor: rows.next_cursor };
  }

  /**
   * A fresh scan (rule 8). The original family scans one mailbox (mailx first, else the first
   * connected); the unified family scans every connected mailbox, or the one with `email`.
   */
  async scan(userId: string, family: Family, email?: string) {
    const all = await integrationsRepo.listActiveMailboxes(this.db, userId);
    let targets = all;
    if (family === "original") {
      const first = all.find((i) => i.provider === "mailx") ?? all[0];
      targets = first ? [first] : [];
    } else if (email) {
      targets = all.filter((i) => i.email === email.toLowerCase());
      if (targets.length === 0) throw notFound("Connected mailbox with that address");
    }
    if (targets.length === 0)
      throw new AppError(ErrorCode.UNPROCESSABLE, "No connected mailbox to scan");

    const found = new Map<string, DomainHit & { source: string }>();
    const scanned: string[] = [];
    let refreshFailed = false;
    let failure: AppError | undefined;
    let retryAfter: number | null = null;
    for (const integration of targets) {
      const outcome = await scanIntegration(this.env, this.config, userId, integration);
      if (!outcome.ok) {
        refreshFailed ||= outcome.reason === "refresh_failed";
        if (outcome.reason === "failed") failure ??= outcome.error;
        if (outcome.reason === "unavailable" && outcome.retryAfterSeconds)
          retryAfter = Math.max(retryAfter ?? 0, outcome.retryAfterSeconds);
        continue;
      }
      scanned.push(integration.email);
      for (const [domain, hit] of outcome.hits) {
        const prev = found.get(domain);
        if (!prev) found.set(domain, { ...hit, source: integration.email });
        else {
          prev.count += hit.count;
          if (hit.lastSeen && (!prev.lastSeen || hit.lastSeen > prev.lastSeen))
            prev.lastSeen = hit.lastSeen;
        }
      }
    }
    if (scanned.length === 0) {
      if (refreshFailed)
        throw new AppError(
          ErrorCode.UNPROCESSABLE,
          "The mailbox is disconnected; reconnect it and scan again",
        );
      if (failure) throw failure;
      if (retryAfter) {
        throw new AppError(
          ErrorCode.SERVICE_UNAVAILABLE,
          `The mailbox provider is busy; try again in ${retryAfter} seconds`,
          { headers: { "Retry-After": String(retryAfter) } },
        );
      }
      throw new AppError(
        ErrorCode.SERVICE_UNAVAILABLE,
        "The mailbox provider is unavailable; try again later",
      );
    }

    const [existing, entries, connected] = await Promise.all([
      repo.listAccounts(this.db, userId),
      repo.vaultRefs(this.db, userId),
      integrationsRepo.listIntegrations(this.db, userId),
    ]);
    // A mailbox whose address is not yet proven (pending_verification) names no one.
    const emails = new Set(
      connected
        .filter((i) => i.status !== "pending_verification")
        .map((i) => i.email.toLowerCase()),
    );
    const byDomain = new Map(existing.map((r) => [r.domain, r]));
    const now = new Date().toISOString();
    const upserts: DiscoveredAccountRow[] = [];
    for (const [domain, hit] of found) {
      const info = serviceInfo(domain);
      const entry = matchEntry(domain, info.serviceName, entries);
      const prev = byDomain.get(domain);
      upserts.push({
        id: prev?.id ?? randomId(),
        userId,
        domain,
        ...info,
        inVault: !!entry,
        vaultPasswordId: entry?.id ?? null,
        dismissed: prev?.dismissed ?? false,
        oauthLikely:
          family === "unified" ? oauthLikely(entry, emails) : (prev?.oauthLikely ?? false),
        emailCount: hit.count,
        sourceEmail: hit.source,
        lastSeenAt: hit.lastSeen,
        createdAt: prev?.createdAt ?? now,
        updatedAt: now,
      });
    }
    // Only accounts that the scanned mailboxes could have produced are removed when absent.
    const scannedSet = new Set(scanned);
    const remove = existing
      .filter(
        (r) =>
          !found.has(r.domain) &&
          (!r.sourceEmail || scannedSet.has(r.sourceEmail) || family === "original"),
      )
      .map((r) => r.id);
    await repo.replaceScanned(this.db, userId, upserts, remove);
    // A scan answers with everything it leaves, unpaged as before, so next_cursor is null.
    const rows = await repo.listAccounts(this.db, userId);
    return {
      accounts: rows.filter((r) => !r.dismissed).map(toAccount),
      stats: statsOf(rows),
      next_cursor: null,
    };
  }

  async patch(
    userId: string,
    body: { id: string; dismissed?: boolean; inVault?: boolean; vaultPasswordId?: string | null },
  ) {
    const set: Partial<DiscoveredAccountRow> = { updatedAt: new Date().toISOString() };
    if (body.dismissed !== undefined) set.dismissed = body.dismissed;
    if (body.vaultPasswordId) {
      if (!(await repo.liveEntryExists(this.db, userId, body.vaultPasswordId)))
        throw notFound("Vault entry");
      set.vaultPasswordId = body.vaultPasswordId;
      set.inVault = true;
    }
    if (body.inVault === false) {
      if (body.vaultPasswordId)
        throw validationError("inVault false contradicts vaultPasswordId", [
          { field: "inVault", message: "cannot be false with a vaultPasswordId" },
        ]);
      set.inVault = false;
      set.vaultPasswordId = null;
    } else if (body.inVault === true) set.inVault = true;
    const row = await repo.updateAccount(this.db, userId, body.id, set);
    if (!row) throw notFound("Discovered account");
    return toAccount(row);
  }

  /** Add-to-vault: placeholder entries (-1) for discovered domains not already in the vault. */
  async addToVault(userId: string, domains: string[], maxPerUser: number) {
    const wanted = [...new Set(domains.map((d) => d.trim().toLowerCase()))];
    const [accounts, entries, integrations] = await Promise.all([
      repo.listAccounts(this.db, userId),
      repo.vaultRefs(this.db, userId),
      integrationsRepo.listIntegrations(this.db, userId),
    ]);
    const username = integrations.find((i) => i.status !== "pending_verification")?.email ?? null;
    const byDomain = new Map(accounts.map((a) => [a.domain, a]));
    const vaultHosts = new Set(
      entries
        .flatMap((e) => [e.host, normalizeHost(e.website), normalizeHost(e.url)])
        .filter(Boolean),
    );
    const items: repo.Placeholder[] = [];
    const skipped: { domain: string; reason: "in_vault" | "not_discovered" }[] = [];
    for (const domain of wanted) {
      const account = byDomain.get(domain);
      if (!account) {
        skipped.push({ domain, reason: "not_discovered" });
        continue;
      }
      if (vaultHosts.has(domain)) {
        skipped.push({ domain, reason: "in_vault" });
        continue;
      }
      items.push({
        id: randomId(),
        accountId: account.id,
        domain,
        name: account.serviceName,
        username,
      });
    }
    if (items.length) {
      // Placeholders are vault writes like any other: the batch moves the commit clock so sync sees them.
      const stmts = repo.placeholderStatements(
        this.db,
        userId,
        items,
        maxPerUser,
        new Date().toISOString(),
      );
      const stored = await writeMinted(
        entryIdClaims(this.env),
        userId,
        items.map((p) => p.id),
        async () => {
          const [advanced, firstInsert] = await this.db.batch([
            advanceClock(this.db, userId),
            ...stmts,
          ] as unknown as Parameters<Db["batch"]>[0]);
          const stored = rowsChanged(firstInsert as { meta: { changes?: number | null } }) > 0;
          if (stored) announceClocks(this.env, advanced);
          return stored;
        },
      );
      if (!stored)
        throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "Password entry limit reached");
    }
    return {
      success: true as const,
      created: items.map(({ id, domain, name }) => ({ id, domain, name })),
      skipped,
    };
  }
}
