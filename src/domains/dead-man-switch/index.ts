/** The dead-man-switch domain's public surface: other domains and the entry import only this file. */
export { registerDeadManSwitchRoutes, signInResetsDeadManSwitch } from "./routes";
export { runDeadManSwitchTimer } from "./timer";
export { rearmDeadManSwitches } from "./rearm";
