// The local OpenID provider's development users and client (scripts/lib/dev-oidc.mjs); a module of
// its own so tests can name them without loading the provider.
export const DEV_CLIENT_ID = "credential-vault-web";
/**
 * The command line (cli/) as a native app (RFC 8252): a public client whose loopback redirect may
 * use any port, with refresh tokens and the device authorization grant (RFC 8628).
 */
export const DEV_CLI_CLIENT_ID = "credential-vault-cli";
export const DEV_PASSWORD = "vault-dev-password";
/** `npm start` signs in as one of them (password DEV_PASSWORD). */
export const DEV_USERS = [
  { sub: "alice", email: "alice@example.test", roles: [] },
  { sub: "bob", email: "bob@example.test", roles: [] },
  { sub: "carol", email: "carol@example.test", roles: ["admin"] },
];
