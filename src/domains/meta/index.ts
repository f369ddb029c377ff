/** The meta domain's public surface: other domains and the entry import only this file. */
export { registerMetaRoutes } from "./routes";
