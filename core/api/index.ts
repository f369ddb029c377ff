/**
 * The API client: the fetch wrapper and its errors, ENDPOINTS and their wire types, response
 * revalidation, this device's identity, and the recovery and sharing endpoints.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./api";
export * from "./recovery-api";
export * from "./revalidate";
export * from "./sharing-api";
