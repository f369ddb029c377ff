/**
 * The sync engine: push and pull, the pull reader's worker client and page writer, NDJSON framing,
 * and live sync. The pull worker itself (pull-worker.ts) is a bundle entry, not exported.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./live-sync";
export * from "./ndjson";
export * from "./page-writer";
export * from "./pull-worker-client";
export * from "./sync-engine";
