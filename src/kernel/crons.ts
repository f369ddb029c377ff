/**
 * wrangler.toml's crons: the daily clean-up, and the backup's steps (docs/operations.md, "Backup
 * and restore"). Kept out of the entry module: workerd reads every named export of the entry as
 * an entrypoint, and a string there stops `wrangler dev` from starting.
 */
export const DAILY_CRON = "17 3 * * *";
export const BACKUP_CRON = "*/10 * * * *";
