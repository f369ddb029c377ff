import { taskProgress } from "../../../durable-objects/task-progress";
import type { Db } from "../../db/client";
import type { ResetTaskRow } from "../../db/schema";
import type { Bindings, Config } from "../../env";
import { recordResetOutcome } from "./outcome";
import * as repo from "./repo";

/** wrangler.toml `[[queues.consumers]] max_retries`. */
export const QUEUE_MAX_RETRIES = 3;
/** One delivery plus the queue's retries. */
export const MAX_RUNS = QUEUE_MAX_RETRIES + 1;
/** The browser steps are bounded by their own timeouts (30 s navigation, 15 s form submits). */
const BROWSER_STEP_MS = 60_000;
const MARGIN_MS = 60_000;

/**
 * How long a run may go without writing before another delivery may take the task over: the
 * longest step (the mailbox or code wait, or a browser step) plus a margin. Every status change
 * renews it, so only a run that stopped writing (a dead worker) loses it.
 */
export function leaseMs(config: Config): number {
  return Math.max(config.RESET_EMAIL_WAIT_SECONDS * 1000, BROWSER_STEP_MS) + MARGIN_MS;
}

export const leaseUntil = (config: Config, from = Date.now()) =>
  new Date(from + leaseMs(config)).toISOString();

/** The step whose start means the site may have been given the new password. */
export const typedBefore = (row: ResetTaskRow) =>
  row.steps.some((s) => s.name === "set_password" && s.status === "running");
export const STOPPED_TYPING =
  "the automation stopped while setting the new password; it may already be in effect";

export type ClaimOutcome =
  | { task: ResetTaskRow; leaseId: string }
  | { done: true }
  | { retryAfterSeconds: number };

/**
 * Decides what a delivery does with its task: run it (claimed with a fresh lease), leave it (ended,
 * absent, or ended here because it ran out of runs), or come back once a live lease could expire.
 */
export async function claimForRun(
  env: Bindings,
  config: Config,
  db: Db,
  userId: string,
  taskId: string,
): Promise<ClaimOutcome> {
  const now = Date.now();
  const lease = { id: crypto.randomUUID(), expiresAt: leaseUntil(config, now) };
  const task = await repo.claimTask(
    db,
    userId,
    taskId,
    new Date(now).toISOString(),
    lease,
    MAX_RUNS,
  );
  if (task) return { task, leaseId: lease.id };
  const row = await repo.findTask(db, userId, taskId);
  if (!row || !(row.status === "pending" || repo.IN_FLIGHT.includes(row.status)))
    return { done: true };
  const expires = row.leaseExpiresAt ? Date.parse(row.leaseExpiresAt) : 0;
  if (row.status !== "pending" && expires > now)
    return { retryAfterSeconds: Math.ceil((expires - now) / 1000) + 1 };
  if (row.runs < MAX_RUNS) return { retryAfterSeconds: 1 };
  const typed = typedBefore(row);
  const error =
    row.status === "pending"
      ? "the browser could not start"
      : typed
        ? STOPPED_TYPING
        : "the automation stopped unexpectedly";
  const at = new Date().toISOString();
  const steps = row.steps.map((s) =>
    s.status === "pending" || s.status === "running"
      ? { ...s, status: s.status === "running" ? "failed" : "skipped" }
      : s,
  );
  const ended = row.leaseId
    ? await repo.updateLeased(db, userId, taskId, row.leaseId, {
        status: "failed",
        error,
        steps,
        completedAt: at,
        updatedAt: at,
        leaseExpiresAt: at,
      })
    : (await repo.updateTask(db, userId, taskId, {
        status: "failed",
        error,
        steps,
        completedAt: at,
        updatedAt: at,
      }),
      true);
  if (ended) {
    await recordResetOutcome(db, row, { status: "failed", error });
    const progress = taskProgress(env.TASK_PROGRESS, taskId);
    const held = typed ? await progress.heldPassword() : null;
    await progress.publish({
      event: "status",
      data: { status: "failed", error, ...(held ? { newPassword: held } : {}) },
    });
  }
  return { done: true };
}
