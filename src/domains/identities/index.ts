/** The identities domain's public surface: other domains and the entry import only this file. */
export { registerIdentityRoutes } from "./routes";
export { identityAliasKeysColumn } from "./service";
