import type { Db } from "../../db/client";
import type { EntryIdClaims } from "../../db/entry-ids";
import type { PasswordRow } from "../../db/schema";
import type { RequestMeta } from "../../kernel/context";
import { randomId } from "../../lib/crypto";
import { auditInsert } from "../audit";
import { advanceClock } from "../../db/change-clock";
import { announceClocks, type LiveSyncBindings } from "../../db/clock-announce";
import * as repo from "./repo";
import { replaceHostsStatements, type EntryHosts } from "./hosts";
import { CURRENT_ENCRYPTION_VERSION, newEntryRow } from "./rows";
import { IMPORT_BATCH_SIZE, type ImportEntry } from "./transfer-schema";
import { errorName, logJson } from "../../lib/log";

const DEFAULT_NAME = "Imported entry";
/** Import batches sent to D1 per round trip; each batch still succeeds or fails on its own. */
const BATCHES_PER_ROUND_TRIP = 10;

export class ImportService {
  constructor(
    private readonly db: Db,
    private readonly limits: repo.VaultLimits,
    private readonly claims: EntryIdClaims,
    /** The live-sync hubs a committed import batch tells (clock-announce.ts). */
    private readonly hubs: LiveSyncBindings,
  ) {}

  /**
   * Imports pre-encrypted V3 entries in batches of 50. Each batch is one D1 transaction that goes in
   * whole or not at all: its first insert checks that the whole batch fits under the entry limit,
   * and every other insert of the batch depends on that first row existing. A failed batch adds an
   * error string and the next batch goes on.
   */
  async import(userId: string, entries: ImportEntry[], provider: string, meta: RequestMeta) {
    const now = new Date().toISOString();
    // An entry whose id is taken (imported before, another's, or named twice in this request) is
    // not stored, never overwritten: its envelope is bound to that id, so storing it under a fresh
    // one would make it unreadable. Each is named by its position, so the client can seal it again.
    const rows = entries.map((e) => toRow(userId, e, now));
    const hosts = new Map<string, string[]>(
      entries.flatMap((e, i) =>
        e.host_hashes?.length ? [[rows[i].id, e.host_hashes] as const] : [],
      ),
    );
    const minted = new Set(rows.flatMap((r, i) => (entries[i].id ? [] : [r.id])));
    const [here, claimed] = await Promise.all([
      repo.takenIds(
        this.db,
        entries.flatMap((e) => (e.id ? [e.id] : [])),
      ),
      this.claims.claim(
        userId,
        rows.map((r) => r.id),
      ),
    ]);
    const named = new Set<string>();
    const takenAt: number[] = [];
    const fresh = rows.filter((r, i) => {
      const ok =
        minted.has(r.id) || (!here.has(r.id) && !claimed.taken.has(r.id) && !named.has(r.id));
      named.add(r.id);
      if (!ok) takenAt.push(i + 1);
      return ok;
    });
    const batches: PasswordRow[][] = [];
    for (let start = 0; start < fresh.length; start += IMPORT_BATCH_SIZE)
      batches.push(fresh.slice(start, start + IMPORT_BATCH_SIZE));
    const outcomes: (boolean | "error")[] = [];
    try {
      for (let g = 0; g < batches.length; g += BATCHES_PER_ROUND_TRIP) {
        outcomes.push(
          ...(await this.storeGroup(userId, batches.slice(g, g + BATCHES_PER_ROUND_TRIP), hosts)),
        );
      }
    } finally {
      const unstored = batches
        .flatMap((b, i) => (outcomes[i] === true ? [] : b))
        .filter((r) => minted.has(r.id) && claimed.fresh.has(r.id));
      await this.claims.release(
        userId,
        unstored.map((r) => r.id),
      );
    }
    const errors: string[] = takenAt.length ? [takenIdsError(takenAt)] : [];
    let imported = 0;
    outcomes.forEach((ok, b) => {
      const first = b * IMPORT_BATCH_SIZE + 1;
      const label = `Batch ${b + 1} (entries ${first} to ${first + batches[b].length - 1})`;
      if (ok === true) imported += batches[b].length;
      else if (ok === false)
        errors.push(
          `${label}: not imported, the vault would exceed its limit of ${this.limits.entries} entries or ${this.limits.bytes} bytes`,
        );
      else errors.push(`${label}: not imported, the batch could not be stored`);
    });
    await auditInsert(this.db, {
      userId,
      action: "password.import",
      meta,
      details: { provider, submitted: entries.length, imported, failedBatches: errors.length },
    });
    return {
      success: errors.length === 0,
      imported,
      encryption_version: CURRENT_ENCRYPTION_VERSION,
      errors,
    };
  }

  /**
   * Stores several batches in one round trip. Each batch is one statement, so a batch that does not
   * fit simply inserts nothing; should a statement fail outright, the round trip is rolled back and
   * its batches are retried one by one, so the failure stays with its own batch.
   */
  private async storeGroup(
    userId: string,
    group: PasswordRow[][],
    hosts: Map<string, string[]>,
  ): Promise<(boolean | "error")[]> {
    const run = async (part: PasswordRow[][]) => {
      // The hosts' rows last: they go in only for entries the batch's inserts stored.
      const withHosts: EntryHosts[] = part
        .flat()
        .flatMap((r) => (hosts.has(r.id) ? [{ id: r.id, hashes: hosts.get(r.id)! }] : []));
      const statements = [
        advanceClock(this.db, userId),
        ...part.map((rows) => repo.bulkInsertStatement(this.db, userId, rows, this.limits)),
        ...(withHosts.length ? replaceHostsStatements(this.db, userId, withHosts) : []),
      ];
      const out = (await this.db.batch(
        statements as unknown as Parameters<Db["batch"]>[0],
      )) as unknown as { meta?: { changes?: number } }[];
      const stored = part.map((_, i) => (out[i + 1].meta?.changes ?? 0) > 0);
      if (stored.some(Boolean)) announceClocks(this.hubs, out[0]);
      return stored;
    };
    try {
      return await run(group);
    } catch {
      const results: (boolean | "error")[] = [];
      for (const rows of group) {
        try {
          results.push(...(await run([rows])));
        } catch (err) {
          logJson("error", "import batch failed", { error: errorName(err) });
          results.push("error");
        }
      }
      return results;
    }
  }

  /** The audit record of a plaintext export, which the client writes itself from opened entries. */
  async recordPlainExport(userId: string, meta: RequestMeta) {
    await auditInsert(this.db, {
      userId,
      action: "password.export_plain",
      meta,
      details: { format: "csv" },
    });
  }

  /** Every live V3 entry as a document that the import endpoint accepts back as it is. */
  async export(userId: string, meta: RequestMeta) {
    const [rows, hosts] = await Promise.all([
      repo.listAllLive(this.db, userId),
      repo.hostHashesOf(this.db, userId),
    ]);
    const v3 = rows.filter(
      (r) =>
        r.encryptionVersion === CURRENT_ENCRYPTION_VERSION && r.wrappedItemKey && r.encryptedData,
    );
    const entries = v3.map((r) => ({
      id: r.id,
      wrapped_item_key: r.wrappedItemKey!,
      encrypted_data: r.encryptedData!,
      domain_hash: r.domainHash,
      name_hash: r.nameHash,
      username_hash: r.usernameHash,
      search_tokens: r.searchTokens,
      ...(hosts.has(r.id) ? { host_hashes: hosts.get(r.id)! } : {}),
      encryption_version: CURRENT_ENCRYPTION_VERSION as 3,
      name: r.name,
      website: r.website,
      url: r.url,
      tags: r.tags,
      strength: r.strength,
      has_passkey: r.hasPasskey,
      passkey_label: r.passkeyLabel,
    }));
    await auditInsert(this.db, {
      userId,
      action: "password.export",
      meta,
      details: { exported: entries.length, skippedPlaceholders: rows.length - v3.length },
    });
    return {
      format: "credential-vault-export" as const,
      version: 1 as const,
      exported_at: new Date().toISOString(),
      provider: "generic" as const,
      encryption_version: CURRENT_ENCRYPTION_VERSION as 3,
      count: entries.length,
      skipped_placeholders: rows.length - v3.length,
      entries,
    };
  }
}

/** Positions shown in the error before the rest are only counted (a 5,000-entry request stays readable). */
const LISTED_POSITIONS = 20;

function takenIdsError(positions: number[]): string {
  const shown = positions.slice(0, LISTED_POSITIONS).join(", ");
  const more = positions.length - LISTED_POSITIONS;
  const which =
    positions.length === 1
      ? `Entry ${shown} was`
      : `Entries ${shown}${more > 0 ? ` and ${more} more` : ""} were`;
  return `${which} not imported: ${positions.length === 1 ? "its id is" : "their ids are"} already in use (an entry's envelope is bound to its id: seal ${positions.length === 1 ? "it" : "them"} again under a new id)`;
}

function toRow(userId: string, e: ImportEntry, now: string): PasswordRow {
  return newEntryRow(userId, e.id ?? randomId(), { ...e, name: e.name ?? DEFAULT_NAME }, now);
}
