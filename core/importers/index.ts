/**
 * The importers and the vault's own export file, shared by the web app's Import and Export page
 * and the command line's `vault import` and `vault export` (docs/cli.md): reading another
 * manager's export into plaintext credentials (read.ts), sealing each under the vault key as an
 * import sends it (seal.ts), the vault file's body and plain CSV (vault-file.ts), and the vault as
 * a CXF document (cxf.ts). No DOM: the
 * KeePass reader uses a Worker where one exists and reads in place where none does.
 */
export * from "./read";
export { kindSummary } from "./kinds";
export { protectExport } from "./bitwarden-crypto";
export {
  cxfCredentials,
  cxfDocument,
  type CxfDocument,
  type CxfExporter,
} from "./cxf";
export { problemOf, readCxf, readOwnExport, sealCredential } from "./seal";
export {
  credentialOf,
  isServerExport,
  isVaultFileBody,
  itemProblem,
  MIN_FILE_PASSWORD,
  PLAIN_COLUMNS,
  plainCsv,
  sealedVaultFile,
  sealItem,
  VAULT_FILE_FORMAT,
  VAULT_FILE_VERSION,
  vaultFileBody,
  type VaultFileBody,
  type VaultFileItem,
  vaultFileItem,
} from "./vault-file";
