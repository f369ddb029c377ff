/** The push domain's public surface: other domains and the entry import only this file. */
export { registerPushRoutes } from "./routes";
export { pushToUser, type PushPayload } from "./send";
