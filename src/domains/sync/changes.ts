import { PLACEHOLDER_ENCRYPTION_VERSION } from "../passwords";
import type { SyncRow } from "./repo";
import type { SyncEntry, Tombstone } from "./schema";

/** An entry as a pull or a push answer carries it: a tombstone, or the live entry's envelope. */
export function toChange(row: SyncRow): SyncEntry | Tombstone {
  if (row.deletedAt !== null) return { id: row.id, _deleted: true, deleted_at: row.deletedAt };
  return {
    id: row.id,
    name: row.name,
    website: row.website,
    url: row.url,
    username: row.encryptionVersion === PLACEHOLDER_ENCRYPTION_VERSION ? row.username : null,
    tags: row.tags,
    encryption_version: row.encryptionVersion,
    wrapped_item_key: row.wrappedItemKey,
    encrypted_data: row.encryptedData,
    has_totp: row.hasTotp,
    has_passkey: row.hasPasskey,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    _deleted: false,
  };
}
