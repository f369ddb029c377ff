import { taskProgress } from "../../../durable-objects/task-progress";
import { dbFor } from "../../db/client";
import type { JobStep } from "../../db/schema";
import type { Bindings, Config } from "../../env";
import { AppError, conflict, ErrorCode, notFound } from "../../lib/errors";
import { assertPublicUrl } from "../../lib/outbound-guard";
import { guardOptions } from "../../lib/guarded-fetch";
import { normalizeHost } from "../../lib/hostname";
import { listActiveMailboxes } from "../integrations/repo";
import * as repo from "./repo";

export const STEP_NAMES = ["navigate", "enter_email", "wait_for_email", "follow_link", "set_password"] as const;

export type CreateTaskInput = { serviceUrl: string; email: string; passwordId?: string; clientPublicKey?: JsonWebKey };

/**
 * Creates a reset task. The outbound guard runs first (DECISIONS D12), then the connected-mailbox
 * check (422, D14); only then is anything written or queued.
 */
export async function createResetTask(env: Bindings, config: Config, userId: string, input: CreateTaskInput) {
  const url = await assertPublicUrl(input.serviceUrl, "serviceUrl", guardOptions(config));
  const db = dbFor(env, userId);
  const mailboxes = await listActiveMailboxes(db, userId);
  if (mailboxes.length === 0) throw new AppError(ErrorCode.UNPROCESSABLE, "Connect a mailbox before starting a password reset");
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const steps: JobStep[] = STEP_NAMES.map((name) => ({ name, status: "pending", duration: null }));
  await repo.insertJob(db, {
    id,
    userId,
    service: normalizeHost(url.hostname) ?? url.hostname,
    serviceUrl: url.toString(),
    email: input.email,
    passwordId: input.passwordId ?? null,
    clientPublicKey: input.clientPublicKey ?? null,
    status: "pending",
    steps,
    createdAt: now,
    updatedAt: now,
  });
  await taskProgress(env.TASK_PROGRESS, id).publish({ event: "status", data: { status: "pending" } });
  try {
    await env.RESET_QUEUE.send({ jobId: id, userId });
  } catch {
    await repo.updateJob(db, userId, id, { status: "failed", error: "could not be queued", updatedAt: new Date().toISOString() });
    await taskProgress(env.TASK_PROGRESS, id).publish({ event: "status", data: { status: "failed", error: "could not be queued" } });
    throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "The reset queue is unavailable");
  }
  return { taskId: id, status: "pending" as const };
}

export async function getJob(env: Bindings, userId: string, id: string) {
  const row = await repo.findJob(dbFor(env, userId), userId, id);
  if (!row) throw notFound("Job");
  return {
    id: row.id,
    status: row.status,
    service: row.service,
    passwordId: row.passwordId,
    startedAt: row.startedAt,
    completedAt: row.completedAt,
    steps: row.steps,
    ...(row.error ? { error: row.error } : {}),
  };
}

export async function taskStream(env: Bindings, userId: string, id: string): Promise<Response> {
  if (!(await repo.findJob(dbFor(env, userId), userId, id))) throw notFound("Task");
  return taskProgress(env.TASK_PROGRESS, id).stream();
}

const OPEN = new Set(["pending", "running", "waiting_for_email", "waiting_for_otp"]);

/** Holds a code for the flow; accepted only while the task can still use it. */
export async function submitOtp(env: Bindings, userId: string, id: string, code: string) {
  const row = await repo.findJob(dbFor(env, userId), userId, id);
  if (!row) throw notFound("Task");
  if (!OPEN.has(row.status)) return { accepted: false };
  await taskProgress(env.TASK_PROGRESS, id).putOtp(code);
  return { accepted: true };
}

/**
 * DECISIONS D17: the owner stops a task that has not ended. The run notices at its next step (or
 * within a second while it waits for mail or a code), closes its browser and writes nothing more.
 */
export async function cancelTask(env: Bindings, userId: string, id: string) {
  const db = dbFor(env, userId);
  const row = await repo.findJob(db, userId, id);
  if (!row) throw notFound("Task");
  const steps = row.steps.map((s) => (s.status === "pending" || s.status === "running" ? { ...s, status: "skipped" } : s));
  if (!(await repo.cancelJob(db, userId, id, steps, new Date().toISOString()))) {
    const now = await repo.findJob(db, userId, id);
    if (now && OPEN.has(now.status)) throw conflict("The new password is already being set; the reset can no longer be cancelled");
    throw conflict("The task has already ended");
  }
  await taskProgress(env.TASK_PROGRESS, id).cancel();
  return { taskId: id, status: "cancelled" as const };
}
