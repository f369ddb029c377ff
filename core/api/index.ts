/**
 * The API client: the fetch wrapper and its errors, ENDPOINTS and their wire types, response
 * revalidation, this device's identity, and the recovery and sharing endpoints.
 * This file is the part's only public surface (.dependency-cruiser.cjs).
 */
export * from "./api";
export * from "./recovery-api";
export * from "./revalidate";
export * from "./sharing-api";
/** The server's own wire types, for shapes an app names (a listed row, a request body). */
export type { WireBody, WireQuery, WireResponse } from "./wire.gen";
