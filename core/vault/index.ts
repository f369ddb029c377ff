/**
 * The vault model: entries opened, edited and sealed, the entry reader (its worker,
 * entry-reader-worker.ts, is a bundle entry, not exported), and work done in slices.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./entry-reader";
export * from "./next-task";
export * from "./vault";
