import type { Db } from "../../db/client";
import type { NewPasswordRow, PasswordRow } from "../../db/schema";
import type { RequestMeta } from "../../kernel/context";
import { randomId } from "../../lib/crypto";
import { AppError, ErrorCode, notFound, validationError } from "../../lib/errors";
import { candidateHosts, normalizeHost } from "../../kernel/hostname";
import { auditInsert } from "../audit";
import * as repo from "./repo";
import type { CreatePasswordInput, PasswordEntry, UpdatePasswordInput } from "./schema";

export const CURRENT_ENCRYPTION_VERSION = 3;
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

/** The host an entry is matched under: its website, else its url. */
export function hostOf(website: string | null | undefined, url: string | null | undefined): string | null {
  return normalizeHost(website) ?? normalizeHost(url);
}

export class PasswordService {
  constructor(
    private readonly db: Db,
    private readonly maxPerUser: number,
  ) {}

  async list(userId: string, page: number, limit: number) {
    const { rows, total } = await repo.listLive(this.db, userId, (page - 1) * limit, limit);
    return { data: rows.map(toEntry), pagination: { page, limit, total } };
  }

  async create(userId: string, input: CreatePasswordInput) {
    const now = new Date().toISOString();
    const row = {
      id: randomId(),
      userId,
      name: input.name,
      website: input.website ?? null,
      url: input.url ?? null,
      tags: input.tags ?? [],
      encryptionVersion: CURRENT_ENCRYPTION_VERSION,
      wrappedItemKey: input.wrapped_item_key,
      encryptedData: input.encrypted_data,
      domainHash: input.domain_hash ?? null,
      nameHash: input.name_hash,
      usernameHash: input.username_hash,
      searchTokens: input.search_tokens ?? [],
      strength: input.strength ?? null,
      host: hostOf(input.website, input.url),
      createdAt: now,
      updatedAt: now,
    };
    if (!(await repo.insertUnderLimit(this.db, row, this.maxPerUser))) {
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "Password limit exceeded");
    }
    return { id: row.id, user_id: userId, name: row.name, encryption_version: row.encryptionVersion, password: null, created_at: now };
  }

  async update(userId: string, id: string, input: UpdatePasswordInput) {
    const current = await repo.findLive(this.db, userId, id);
    if (!current) throw notFound("Password entry");
    const now = new Date().toISOString();
    const set: Partial<NewPasswordRow> = { updatedAt: now };
    if (input.name !== undefined) set.name = input.name;
    if (input.website !== undefined) set.website = input.website;
    if (input.url !== undefined) set.url = input.url;
    if (input.tags !== undefined) set.tags = input.tags;
    if (input.wrapped_item_key !== undefined) set.wrappedItemKey = input.wrapped_item_key;
    if (input.encrypted_data !== undefined) set.encryptedData = input.encrypted_data;
    if (input.domain_hash !== undefined) set.domainHash = input.domain_hash;
    if (input.name_hash !== undefined) set.nameHash = input.name_hash;
    if (input.username_hash !== undefined) set.usernameHash = input.username_hash;
    if (input.search_tokens !== undefined) set.searchTokens = input.search_tokens;
    if (input.strength !== undefined) set.strength = input.strength;
    if (input.has_passkey !== undefined) set.hasPasskey = input.has_passkey;
    if (input.passkey_label !== undefined) set.passkeyLabel = input.passkey_label;
    if (input.website !== undefined || input.url !== undefined) {
      set.host = hostOf(input.website !== undefined ? input.website : current.website, input.url !== undefined ? input.url : current.url);
    }
    if (input.encryption_version === CURRENT_ENCRYPTION_VERSION && current.encryptionVersion !== CURRENT_ENCRYPTION_VERSION) {
      // A placeholder or legacy entry becomes V3 only with a complete envelope; its plaintext goes.
      const key = input.wrapped_item_key ?? current.wrappedItemKey;
      const data = input.encrypted_data ?? current.encryptedData;
      if (!key || !data) {
        throw validationError("Upgrading to encryption version 3 needs wrapped_item_key and encrypted_data", [
          { field: "encrypted_data", message: "required when encryption_version becomes 3" },
        ]);
      }
      set.encryptionVersion = CURRENT_ENCRYPTION_VERSION;
      set.username = null;
    }
    if (!(await repo.updateLive(this.db, userId, id, set))) throw notFound("Password entry");
    return { id, updated_at: now };
  }

  async remove(userId: string, id: string) {
    if (!(await repo.softDelete(this.db, userId, id, new Date().toISOString()))) throw notFound("Password entry");
  }

  /** Returns the V3 envelope and records who revealed it, from where and when. */
  async reveal(userId: string, id: string, meta: RequestMeta) {
    const row = await repo.findLive(this.db, userId, id);
    if (!row) throw notFound("Password entry");
    if (row.encryptionVersion !== CURRENT_ENCRYPTION_VERSION || !row.wrappedItemKey || !row.encryptedData) {
      throw new AppError(ErrorCode.CONFLICT, "Entry uses legacy encryption and must be migrated to V3 before it can be revealed");
    }
    await auditInsert(this.db, { userId, action: "password.reveal", targetType: "password", targetId: id, meta });
    return { wrappedItemKey: row.wrappedItemKey, encryptedData: row.encryptedData, version: row.encryptionVersion };
  }

  async match(userId: string, url: string) {
    const host = normalizeHost(url);
    if (!host) throw validationError("url has no hostname", [{ field: "url", message: "must be a URL or hostname" }]);
    const rows = await repo.findByHosts(this.db, userId, candidateHosts(host));
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      username_hash: r.username_hash,
      url: r.url ?? r.website,
      wrapped_item_key: r.wrapped_item_key,
      encrypted_data: r.encrypted_data,
    }));
  }
}
