export * from "./audit-events";
export * from "./devices";
export * from "./passwords";
export * from "./notifications";
export * from "./mail-integrations";
export * from "./discovered-accounts";
export * from "./registry-overrides";
export * from "./reset-jobs";
