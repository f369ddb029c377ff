/**
 * The entry model: an entry's fields (URLs, match rules, past passwords, custom fields) and how a
 * decrypted one is read. Below crypto, which parses it out of an entry's secrets.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./entry-model";
export * from "./ssh-key";
export * from "./ssh-signer";
