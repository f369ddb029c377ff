export * from "./audit-events";
export * from "./devices";
export * from "./passwords";
export * from "./notifications";
export * from "./shares";
export * from "./sharing-keys";
export * from "./share-view-logs";
export * from "./session-shares";
