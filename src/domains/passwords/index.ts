/** The passwords domain's public surface: other domains and the entry import only this file. */
export { registerPasswordRoutes } from "./routes";
/** The personal entry store, for a move between the personal vault and a shared one. */
export { PasswordService } from "./service";
export { entryPatch, newEntryRow, type EntryFields } from "./rows";
export { CURRENT_ENCRYPTION_VERSION, PLACEHOLDER_ENCRYPTION_VERSION } from "./service";
/** The entry's wire fields, for the domains that accept entries too (sync, sharing). */
export {
  blindIndex,
  CreatePasswordBody,
  envelopeData,
  envelopeKey,
  MAX_ENCRYPTED_DATA,
  PasswordEntry,
  searchTokens,
  tags,
  webField,
} from "./schema";
/** Queries other domains may run over a user's live entries. */
export {
  bytesGuard,
  bulkInsertStatement,
  findLive,
  listAllLive,
  vaultLimits,
  type VaultLimits,
} from "./repo";
/** Extra addresses' blind host hashes: their validation and the statements that replace them in a write batch. */
export { hostHashes, replaceHostsStatements, type EntryHosts } from "./hosts";
/**
 * Every other domain's reads and writes of entries: the table is this domain's alone, and a write
 * is a statement the caller puts in its own batch (one transaction with its own rows).
 */
export {
  hasTotpStatement,
  liveEntryQuery,
  ownsEntry,
  placeholderInserts,
  shareCountStatement,
  sharedAccounts,
  sharedEntryUpdateStatement,
  vaultRefs,
  type Placeholder,
  type VaultRef,
} from "./other-domains";
/** The trash: deleted entries kept for TRASH_RETENTION_DAYS, restorable until purged. */
export { expireTrash, TrashService } from "./trash-service";
/** The entry store as delta sync pulls and pushes it. */
export {
  findMany,
  lookup,
  pull,
  pullPage,
  purgeTombstones,
  tombstoneStatement,
  updateStatement,
  type PageEnd,
  type PullMode,
  type PullPage,
  type SyncRow,
} from "./sync-repo";
/** A shared vault's entries on its home shard, every ciphertext write fenced by the key version. */
export {
  currentKeyVersion,
  findVaultEntry,
  liveVaultCount,
  vaultDelete,
  vaultDeleteAll,
  vaultInsert,
  vaultUpdate,
} from "./vault-store";
export {
  rotationCommit,
  rotationRemaining,
  rotationStage,
  type StagedEntry,
} from "./vault-rotation";
