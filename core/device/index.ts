/**
 * This browser as a trusted device: the signals its fingerprint is made of, registration, and the
 * possession proofs sent with each call. A part of its own because it reads the page (document,
 * screen), which the service worker's bundle of the API client must not.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./device";
