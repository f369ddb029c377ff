import { z } from "zod";

/** A backup's id: its start time, `2026-11-27T03-17-00-000Z` (src/domains/backup/format.ts). */
export const BackupParam = z.object({
  id: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/, "must be a backup id"),
});

export const BackupBody = z.object({
  /** Start a new backup now rather than when the schedule says one is due. */
  force: z.boolean().optional(),
});

export const RestoreBody = z.object({
  step: z.number().int().min(0),
  /** Step 0 empties this deployment's tables and buckets first: the caller says so explicitly. */
  confirm_wipe: z.boolean().optional(),
});

export const BackupList = z.object({
  backups: z.array(z.object({ id: z.string(), complete: z.boolean() })),
});

export const BackupProgress = z.object({
  id: z.string().nullable(),
  done: z.boolean(),
  chunks: z.number().int(),
  rows: z.number().int(),
  objects: z.number().int(),
  deleted: z.array(z.string()),
});

export const BackupSummary = z.object({
  id: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  migrations: z.number().int(),
  databases: z.array(z.array(z.string())),
  counts: z.object({
    rows: z.record(z.string(), z.number()),
    objects: z.number(),
    object_bytes: z.number(),
  }),
  chunks: z.number().int(),
});

export const RestoreProgress = z.object({
  step: z.number().int(),
  next: z.number().int().nullable(),
  total_steps: z.number().int(),
  rows: z.number().int(),
  objects: z.number().int(),
});
