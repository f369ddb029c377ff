/** The sync domain's public surface: other domains and the entry import only this file. */
export { registerSyncRoutes } from "./routes";
export { purgeExpiredTombstones } from "./purge";
export { liveEntries } from "./service";
export { SyncEntry } from "./schema";
