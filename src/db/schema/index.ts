export * from "./audit-events";
export * from "./devices";
/**
 * The `passwords` table itself is not re-exported: the passwords domain owns it and imports it from
 * ./passwords (.dependency-cruiser.cjs, "passwords-table-has-one-owner"); its row types are shared.
 * drizzle's relational API (`db.query.*`, client.ts) is therefore without it: nothing uses that API
 * for entries, and select/insert/update take the table itself.
 */
export type { NewPasswordRow, PasswordRow } from "./passwords";
export * from "./password-hosts";
export * from "./notifications";
export * from "./outbound-emails";
export * from "./mail-dead-letters";
export * from "./mail-retry-outbox";
export * from "./dead-man-switches";
export * from "./dead-man-switch-recipients";
export * from "./dead-man-switch-logs";
export * from "./emergency-contacts";
export * from "./two-factor";
export * from "./two-factor-recovery-codes";
export * from "./two-factor-sign-ins";
export * from "./dpop-proofs";
export * from "./entry-totp";
export * from "./sync-clocks";
export * from "./shares";
export * from "./sharing-keys";
export * from "./share-view-logs";
export * from "./session-shares";
export * from "./identities";
export * from "./attachments";
export * from "./notes";
export * from "./vault-items";
export * from "./mail-integrations";
export * from "./discovered-accounts";
export * from "./registry-overrides";
export * from "./reset-tasks";
export * from "./vault-counters";
export * from "./push-subscriptions";
export * from "./user-shards";
export * from "./session-share-links";
export * from "./entry-ids";
export * from "./database-identity";
export * from "./secure-links";
export * from "./vaults";
export * from "./vault-tokens";
export * from "./account-keys";
