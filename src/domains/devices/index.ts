/** The devices domain's public surface: other domains and the entry import only this file. */
export { registerDeviceRoutes } from "./routes";
