/** The passwords domain's public surface: other domains and the entry import only this file. */
export { registerPasswordRoutes } from "./routes";
export { entryPatch, newEntryRow, type EntryFields } from "./rows";
export { CURRENT_ENCRYPTION_VERSION, PLACEHOLDER_ENCRYPTION_VERSION } from "./service";
/** The entry's wire fields, for the domains that accept entries too (sync, sharing). */
export {
  blindIndex,
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
