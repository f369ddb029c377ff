export * from "./audit-events";
export * from "./devices";
export * from "./passwords";
