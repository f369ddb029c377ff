/**
 * Secure links: sealing a secret for a link, and reading one.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./secure-links";
