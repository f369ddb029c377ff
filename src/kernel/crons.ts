/**
 * wrangler.toml's crons: the daily clean-up, and the backup's steps (docs/operations.md, "Backup and
 * restore"). Kept out of src/index.ts: every named export of the worker's entry module is taken by
 * workerd as an entrypoint, and a string there stops the runtime from starting.
 */
export const DAILY_CRON = "17 3 * * *";
export const BACKUP_CRON = "*/10 * * * *";
