/** The two-factor domain's public surface: other domains and the entry import only this file. */
export { registerTwoFactorRoutes } from "./routes";
export { twoFactorSecretsColumn } from "./service";
