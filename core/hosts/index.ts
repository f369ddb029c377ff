/**
 * Host hashes: the blinded host names an entry is matched by, and which match rules carry one.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./host-hashes";
