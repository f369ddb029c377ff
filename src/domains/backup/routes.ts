import type { Hono } from "hono";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { listBackups, runBackup } from "./backup";
import { backupUnavailable, describeBackup, restoreStep } from "./restore";
import { keys } from "./format";
import {
  BackupBody,
  BackupList,
  BackupParam,
  BackupProgress,
  BackupSummary,
  RestoreBody,
  RestoreProgress,
} from "./schema";

/**
 * The operator's backups (scripts/restore.mjs drives these; the cron runs the same backup step).
 * Admin only: a backup holds every user's ciphertext and the server-sealed secrets.
 */
const bucketOf = (env: Record<string, unknown>) => {
  const bucket = env.BACKUP_BUCKET as R2Bucket | undefined;
  if (!bucket) throw backupUnavailable();
  return bucket;
};

export function registerBackupRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/admin/backups",
    summary: "The backups in the backup bucket, oldest first (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_backup"],
    responses: {
      200: { description: "Backups", schema: BackupList },
      503: { description: "No backup bucket bound" },
    },
    handler: async (c) => {
      const bucket = bucketOf(c.env);
      const ids = await listBackups(bucket);
      const backups = await Promise.all(
        ids.map(async (id) => ({ id, complete: (await bucket.head(keys(id).manifest)) !== null })),
      );
      return c.json({ backups });
    },
  });

  route(app, {
    method: "post",
    path: "/api/admin/backups",
    summary: "Run one step of the backup: continue the unfinished one, or start one (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_backup"],
    body: BackupBody,
    responses: {
      200: { description: "What this step copied; repeat until done", schema: BackupProgress },
      503: { description: "No backup bucket bound" },
    },
    handler: async (c, { body }) => {
      const config = c.get("config");
      const r = await runBackup(c.env, bucketOf(c.env), {
        force: body.force,
        retentionDays: config.BACKUP_RETENTION_DAYS,
        intervalHours: config.BACKUP_INTERVAL_HOURS,
      });
      return c.json(r);
    },
  });

  route(app, {
    method: "get",
    path: "/api/admin/backups/:id",
    summary: "One complete backup's counts (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_backup"],
    params: BackupParam,
    responses: {
      200: { description: "The manifest's summary", schema: BackupSummary },
      404: { description: "No complete backup with this id" },
    },
    handler: async (c, { params }) => c.json(await describeBackup(bucketOf(c.env), params.id)),
  });

  route(app, {
    method: "post",
    path: "/api/admin/backups/:id/restore",
    summary:
      "Run one step of restoring this deployment from a backup; step 0 empties it first (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_backup"],
    params: BackupParam,
    body: RestoreBody,
    responses: {
      200: {
        description: "The step done and the next one (null when restored)",
        schema: RestoreProgress,
      },
      404: { description: "No complete backup with this id" },
      409: { description: "Different migrations here, or a chunk that fails its checksum" },
    },
    handler: async (c, { params, body }) =>
      c.json(
        await restoreStep(c.env, bucketOf(c.env), params.id, body.step, body.confirm_wipe === true),
      ),
  });
}
