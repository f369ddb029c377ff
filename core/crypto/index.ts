/**
 * Keys and sealing: the passphrase KDF and vault keys, bound envelopes, attachment encryption, this
 * browser's device key, sharing keys, and the contact-key trust store with its fingerprints.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./account-key";
export * from "./attachments";
export * from "./crypto";
export * from "./device-key";
export * from "./envelope";
export * from "./share-crypto";
export * from "./trust";
