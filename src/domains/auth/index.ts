/** The auth domain's public surface: other domains and the entry import only this file. */
export { registerAuthRoutes } from "./routes";
