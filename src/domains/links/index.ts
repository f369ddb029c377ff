/** The secure-links domain's public surface: other domains and the entry import only this file. */
export { registerLinkRoutes } from "./routes";
export { purgeSecureLinks } from "./purge";
