/** The sharing domain's public surface: other domains and the entry import only this file. */
export { registerSharingRoutes } from "./routes";
export { accountOfAddress } from "./repo";
