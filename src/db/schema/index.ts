export * from "./audit-events";
export * from "./devices";
export * from "./passwords";
export * from "./notifications";
export * from "./identities";
export * from "./attachments";
export * from "./notes";
export * from "./vault-items";
