/** The sync domain's public surface: other domains and the entry import only this file. */
export { registerSyncRoutes } from "./routes";
export { purgeExpiredTombstones } from "./purge";
export { liveEntries } from "./service";
export { SyncEntry } from "./schema";
/** The delta pull over one owner's rows, which a shared vault's pull runs on the vault's home shard. */
export { SyncService } from "./service";
export { SyncPullQuery, SyncPullResponse } from "./schema";
