export * from "./audit-events";
export * from "./devices";
export * from "./passwords";
export * from "./notifications";
export * from "./two-factor";
export * from "./two-factor-recovery-codes";
export * from "./password-totp";
export * from "./sync-clocks";
