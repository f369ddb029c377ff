/**
 * A signed-in session: signing in and out, the passphrase (lock, unlock, change, idle lock), and
 * this browser's push subscription.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./passphrase";
export * from "./push-subscription";
export * from "./session";
