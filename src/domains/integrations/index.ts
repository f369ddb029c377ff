/** The integrations domain's public surface: other domains and the entry import only this file. */
export { registerIntegrationRoutes } from "./routes";
export { freshToken, tokensFor, type FreshToken } from "./tokens";
export { openImap, unsealImap, type ImapCredentials } from "./imap";
export { providerConfig, scanProvider, type MessageMeta, type OAuthProvider } from "./providers";
/** Read-only queries other domains may run over a user's mailboxes. */
export { listActiveMailboxes, listIntegrations } from "./repo";
/** The sealed column the scheduled re-seal pass moves to the current data key (D10). */
export { mailSecretsColumn } from "./oauth";
