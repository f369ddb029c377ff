/** The integrations domain's public surface: other domains and the entry import only this file. */
export { registerIntegrationRoutes } from "./routes";
export { freshToken, tokensFor, type FreshToken } from "./tokens";
export { providerConfig, type OAuthProvider } from "./providers";
/** One reader for every kind of mailbox (IMAP, Gmail-shaped, Graph-shaped): discovery and reset mail. */
export {
  apiMailbox,
  MailboxUnavailable,
  openMailbox,
  providerMailbox,
  type Mailbox,
  type MessageMeta,
} from "./mailbox";
/** Read-only queries other domains may run over a user's mailboxes. */
export { listActiveMailboxes, listIntegrations } from "./repo";
/** The sealed column the scheduled re-seal pass moves to the current data key (D10). */
export { mailSecretsColumn } from "./oauth";
