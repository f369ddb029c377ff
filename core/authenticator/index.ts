/**
 * The WebAuthn authenticator the extension answers a page's navigator.credentials with: the
 * relying-party id check (on the public suffix list), and making and signing with the vault's
 * passkeys (CBOR attestation and assertion). Apart from core/passkeys (the stored form and the
 * exchange formats), which crypto and the importers use: they carry no suffix list and no DOM types.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./authenticator";
export * from "./cbor";
export * from "./rpid";
