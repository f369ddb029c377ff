/** The backup domain's public surface: the entry imports only this file. */
export { registerBackupRoutes } from "./routes";
export { runBackup } from "./backup";
