/**
 * The local IndexedDB store (entries, pending changes, the session) and the order entries are
 * listed and stored in.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./db";
export * from "./entry-order";
