/** The entry-totp domain's public surface: other domains and the entry import only this file. */
export { registerEntryTotpRoutes } from "./routes";
export { legacyTotpSecretsColumn } from "./service";
