import type { Db } from "../../db/client";
import type { LiveSyncBindings } from "../../db/clock-announce";
import { writeMinted, type EntryIdClaims } from "../../db/entry-ids";
import type { PasswordRow } from "../../db/schema";
import type { RequestMeta } from "../../kernel/context";
import { randomId, sha256Hex } from "../../lib/crypto";
import { AppError, ErrorCode, notFound, validationError } from "../../lib/errors";
import { candidateHosts, normalizeHost } from "../../kernel/hostname";
import { auditInsert } from "../audit";
import * as repo from "./repo";
import type { VaultLimits } from "./repo";
import { CURRENT_ENCRYPTION_VERSION, entryPatch, newEntryRow } from "./rows";

export { CURRENT_ENCRYPTION_VERSION };
import type { CreatePasswordInput, PasswordEntry, UpdatePasswordInput } from "./schema";

export const PLACEHOLDER_ENCRYPTION_VERSION = -1;

export function toEntry(row: PasswordRow): PasswordEntry {
  return {
    id: row.id,
    user_id: row.userId,
    name: row.name,
    website: row.website,
    url: row.url,
    username: row.encryptionVersion === PLACEHOLDER_ENCRYPTION_VERSION ? row.username : null,
    password: null,
    notes: null,
    category: null,
    tags: row.tags,
    encryption_version: row.encryptionVersion,
    wrapped_item_key: row.wrappedItemKey,
    encrypted_data: row.encryptedData,
    domain_hash: row.domainHash,
    name_hash: row.nameHash,
    username_hash: row.usernameHash,
    search_tokens: row.searchTokens,
    share_count: row.shareCount,
    has_totp: row.hasTotp,
    has_passkey: row.hasPasskey,
    passkey_label: row.passkeyLabel,
    strength: row.strength,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    deleted_at: row.deletedAt,
  };
}

export class PasswordService {
  constructor(
    private readonly db: Db,
    private readonly limits: VaultLimits,
    private readonly claims: EntryIdClaims,
    /** The live-sync hubs a committed write tells (clock-announce.ts). */
    private readonly hubs: LiveSyncBindings,
  ) {}

  async list(userId: string, page: number, limit: number) {
    const { rows, total } = await repo.listLive(this.db, userId, (page - 1) * limit, limit);
    return { data: rows.map(toEntry), pagination: { page, limit, total } };
  }

  async create(userId: string, input: CreatePasswordInput) {
    const now = new Date().toISOString();
    const row = newEntryRow(userId, randomId(), input, now);
    const stored = await writeMinted(this.claims, userId, [row.id], () =>
      repo.insertUnderLimit(this.db, this.hubs, row, this.limits, input.host_hashes),
    );
    if (!stored)
      throw new AppError(
        ErrorCode.SERVICE_UNAVAILABLE,
        "Password limit exceeded (entries or storage)",
      );
    return {
      id: row.id,
      user_id: userId,
      name: row.name,
      encryption_version: row.encryptionVersion,
      password: null,
      created_at: now,
    };
  }

  async update(userId: string, id: string, input: UpdatePasswordInput) {
    const current = await repo.findLive(this.db, userId, id);
    if (!current) throw notFound("Password entry");
    const now = new Date().toISOString();
    const set = entryPatch(input, current, { updatedAt: now });
    if (
      input.encryption_version === CURRENT_ENCRYPTION_VERSION &&
      current.encryptionVersion !== CURRENT_ENCRYPTION_VERSION
    ) {
      // A placeholder or legacy entry becomes V3 only with a complete envelope; its plaintext goes.
      const key = input.wrapped_item_key ?? current.wrappedItemKey;
      const data = input.encrypted_data ?? current.encryptedData;
      if (!key || !data) {
        throw validationError(
          "Upgrading to encryption version 3 needs wrapped_item_key and encrypted_data",
          [{ field: "encrypted_data", message: "required when encryption_version becomes 3" }],
        );
      }
      set.encryptionVersion = CURRENT_ENCRYPTION_VERSION;
      set.username = null;
    }
    if (
      !(await repo.updateLive(
        this.db,
        this.hubs,
        userId,
        id,
        set,
        this.limits.bytes,
        input.host_hashes,
      ))
    ) {
      if (await repo.findLive(this.db, userId, id))
        throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "Vault storage quota exceeded");
      throw notFound("Password entry");
    }
    return { id, updated_at: now };
  }

  async remove(userId: string, id: string) {
    if (!(await repo.softDelete(this.db, this.hubs, userId, id, new Date().toISOString())))
      throw notFound("Password entry");
  }

  /** Returns the V3 envelope and records who revealed it, from where and when. */
  async reveal(userId: string, id: string, meta: RequestMeta) {
    const row = await repo.findLive(this.db, userId, id);
    if (!row) throw notFound("Password entry");
    if (
      row.encryptionVersion !== CURRENT_ENCRYPTION_VERSION ||
      !row.wrappedItemKey ||
      !row.encryptedData
    ) {
      throw new AppError(
        ErrorCode.CONFLICT,
        "Entry uses legacy encryption and must be migrated to V3 before it can be revealed",
      );
    }
    await auditInsert(this.db, {
      userId,
      action: "password.reveal",
      targetType: "password",
      targetId: id,
      meta,
    });
    return {
      wrappedItemKey: row.wrappedItemKey,
      encryptedData: row.encryptedData,
      version: row.encryptionVersion,
    };
  }

  /**
   * Entries for a URL's host and its parent domains, with an entity tag for revalidation (RFC 9110
   * section 8.8.3). When the caller's If-None-Match still holds, only the vault's version is read.
   */
  async match(
    userId: string,
    url: string,
    hashes: string[] = [],
    ifNoneMatch?: string,
  ): Promise<{ etag: string; matches: MatchEntry[] | null }> {
    const host = normalizeHost(url);
    if (!host)
      throw validationError("url has no hostname", [
        { field: "url", message: "must be a URL or hostname" },
      ]);
    // The hashes stand for hosts too (the client's blind index of this host and its parents).
    const hosts = candidateHosts(host);
    const keyed = [...hosts, ...hashes];
    if (ifNoneMatch !== undefined) {
      const etag = await matchTag(userId, keyed, await repo.vaultVersion(this.db, userId));
      if (tagMatches(ifNoneMatch, etag)) return { etag, matches: null };
    }
    const { version, rows } = await repo.versionAndHosts(this.db, userId, hosts, hashes);
    const matches = rows.map((r) => ({
      id: r.id,
      name: r.name,
      username_hash: r.username_hash,
      url: r.url ?? r.website,
      wrapped_item_key: r.wrapped_item_key,
      encrypted_data: r.encrypted_data,
    }));
    return { etag: await matchTag(userId, keyed, version), matches };
  }
}

type MatchEntry = {
  id: string;
  name: string;
  username_hash: string | null;
  url: string | null;
  wrapped_item_key: string | null;
  encrypted_data: string | null;
};

/**
 * A weak tag (the same answer, not necessarily the same bytes) of one user's answer for these
 * hosts at this vault version; the user is in it so a tag never validates another account's cache.
 */
async function matchTag(userId: string, hosts: string[], v: repo.VaultVersion) {
  return `W/"${(await sha256Hex(`${userId}\n${hosts.join(",")}\n${v.seq ?? 0}\n${v.live ?? 0}`)).slice(0, 32)}"`;
}

/** If-None-Match uses the weak comparison (RFC 9110 section 13.1.2): "*" or any listed tag. */
function tagMatches(header: string, etag: string) {
  const opaque = (t: string) => t.trim().replace(/^W\//, "");
  return header.trim() === "*" || header.split(",").some((t) => opaque(t) === opaque(etag));
}
