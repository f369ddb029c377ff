/** The discovery domain's public surface: other domains and the entry import only this file. */
export { registerDiscoveryRoutes } from "./routes";
