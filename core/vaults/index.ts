/**
 * Shared vaults (family and team vaults): the vault key per key version and members' copies of
 * it, entries sealed in the vault's place, the sealed name, the endpoints, and what a member's
 * device does with them (open, create, wrap, write, rotate).
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./shared-vault";
export * from "./vault-crypto";
export * from "./vaults-api";
export * from "./machine-tokens";
export * from "./token-crypto";
