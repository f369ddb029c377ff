import type { NewPasswordRow, PasswordRow } from "../../db/schema";
import { entryHost } from "../../kernel/hostname";

export const CURRENT_ENCRYPTION_VERSION = 3;

/** An entry's fields as every writer receives them on the wire (passwords, sync push, import, share edits). */
export type EntryFields = {
  name?: string;
  website?: string | null;
  url?: string | null;
  tags?: string[];
  wrapped_item_key?: string;
  encrypted_data?: string;
  domain_hash?: string | null;
  name_hash?: string | null;
  username_hash?: string | null;
  search_tokens?: string[];
  /** Not a column: the extra addresses' hashes live in `password_hosts` (./hosts.ts). */
  host_hashes?: string[];
  strength?: string | null;
  has_passkey?: boolean;
  passkey_label?: string | null;
};

/** The one builder of a new V3 entry row; the change clock stamps `changeSeq` when it is written. */
export function newEntryRow(
  userId: string,
  id: string,
  d: EntryFields & { name: string; wrapped_item_key: string; encrypted_data: string },
  createdAt: string,
  updatedAt = createdAt,
): PasswordRow {
  return {
    id,
    userId,
    name: d.name,
    website: d.website ?? null,
    url: d.url ?? null,
    username: null,
    tags: d.tags ?? [],
    encryptionVersion: CURRENT_ENCRYPTION_VERSION,
    wrappedItemKey: d.wrapped_item_key,
    encryptedData: d.encrypted_data,
    domainHash: d.domain_hash ?? null,
    nameHash: d.name_hash ?? null,
    usernameHash: d.username_hash ?? null,
    searchTokens: d.search_tokens ?? [],
    shareCount: 0,
    hasTotp: false,
    hasPasskey: d.has_passkey ?? false,
    passkeyLabel: d.passkey_label ?? null,
    strength: d.strength ?? null,
    host: entryHost(d.website, d.url),
    createdAt,
    updatedAt,
    deletedAt: null,
    purgedAt: null,
    changeSeq: 0,
    vaultId: null,
  };
}

/**
 * The one builder of an entry patch: only the fields given change, and the match host follows a
 * changed website or URL (falling back to the stored other one). `base` carries what the caller
 * always writes (the stamp, and for sync the V3 upgrade).
 */
export function entryPatch(
  d: EntryFields,
  prev: { website: string | null; url: string | null },
  base: Partial<NewPasswordRow>,
): Partial<NewPasswordRow> {
  const set: Partial<NewPasswordRow> = { ...base };
  if (d.name !== undefined) set.name = d.name;
  if (d.website !== undefined) set.website = d.website;
  if (d.url !== undefined) set.url = d.url;
  if (d.tags !== undefined) set.tags = d.tags;
  if (d.wrapped_item_key !== undefined) set.wrappedItemKey = d.wrapped_item_key;
  if (d.encrypted_data !== undefined) set.encryptedData = d.encrypted_data;
  if (d.domain_hash !== undefined) set.domainHash = d.domain_hash;
  if (d.name_hash !== undefined) set.nameHash = d.name_hash;
  if (d.username_hash !== undefined) set.usernameHash = d.username_hash;
  if (d.search_tokens !== undefined) set.searchTokens = d.search_tokens;
  if (d.strength !== undefined) set.strength = d.strength;
  if (d.has_passkey !== undefined) set.hasPasskey = d.has_passkey;
  if (d.passkey_label !== undefined) set.passkeyLabel = d.passkey_label;
  if (d.website !== undefined || d.url !== undefined) {
    set.host = entryHost(
      d.website !== undefined ? d.website : prev.website,
      d.url !== undefined ? d.url : prev.url,
    );
  }
  return set;
}
