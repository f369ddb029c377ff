/** The shared vaults domain's public surface: other domains and the entry import only this file. */
export { registerVaultRoutes } from "./routes";
