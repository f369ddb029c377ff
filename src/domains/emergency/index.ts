/** The emergency domain's public surface: other domains and the entry import only this file. */
export { registerEmergencyRoutes } from "./routes";
export { runEmergencyTimer } from "./timer";
export { rearmEmergencyContacts } from "./rearm";
