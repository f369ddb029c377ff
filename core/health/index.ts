/**
 * Health checks a fill can run too: the breached-password lookup.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./breach";
