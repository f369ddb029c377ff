/** The session-shares domain's public surface: other domains and the entry import only this file. */
export { registerSessionShareRoutes } from "./routes";
export { sessionShareCredentialsColumn, sessionShareRoomHooks } from "./room-hooks";
export { purgeEndedSessionShares } from "./purge";
