/**
 * Passkeys held in the vault: the stored form and the exchange formats (CXF, Bitwarden JSON). The
 * authenticator that signs with them, and its relying-party id rules, are core/authenticator.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./exchange";
export * from "./stored";
