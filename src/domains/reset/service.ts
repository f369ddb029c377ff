import { taskProgress } from "../../../durable-objects/task-progress";
import { dbFor } from "../../db/client";
import type { TaskStep } from "../../db/schema";
import type { Bindings, Config } from "../../env";
import { AppError, conflict, ErrorCode, notFound } from "../../lib/errors";
import { assertPublicUrl } from "../../lib/outbound-guard";
import { guardOptions } from "../../lib/guarded-fetch";
import { normalizeHost } from "../../kernel/hostname";
import { listActiveMailboxes } from "../integrations";
import type { RequestMeta } from "../../http/types";
import { requireBrowserCapacity } from "../../db/live-browsers";
import { BROWSER_ABSENT, hasBrowserRendering } from "../../lib/browser-rendering";
import { auditInsert } from "../audit";
import { recordResetOutcome } from "./outcome";
import * as repo from "./repo";

export const STEP_NAMES = [
  "navigate",
  "enter_email",
  "wait_for_email",
  "follow_link",
  "set_password",
] as const;

export type CreateTaskInput = {
  serviceUrl: string;
  email: string;
  passwordId?: string;
  clientPublicKey?: JsonWebKey;
};

/**
 * Creates a reset task. A deployment without Browser Rendering refuses it in words (503), then the
 * outbound guard runs (DECISIONS D12), then the connected-mailbox
 * check (422, D14 and D17); only then is anything written (the task with its `reset.start` audit
 * event) or queued.
 */
export async function createResetTask(
  env: Bindings,
  config: Config,
  userId: string,
  input: CreateTaskInput,
  meta?: RequestMeta,
) {
  // Without Browser Rendering the queued task could only fail: refused before anything is stored.
  if (!hasBrowserRendering(env)) throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, BROWSER_ABSENT);
  const url = await assertPublicUrl(input.serviceUrl, "serviceUrl", guardOptions(config));
  const db = dbFor(env, userId);
  const mailboxes = await listActiveMailboxes(db, userId);
  if (mailboxes.length === 0)
    throw new AppError(
      ErrorCode.UNPROCESSABLE,
      "Connect a mailbox before starting a password reset",
    );
  // D17: the reset mail must land where this user reads it; any other address would let a token
  // holder reset an account that is not theirs.
  const email = input.email.toLowerCase();
  if (!mailboxes.some((m) => m.email.toLowerCase() === email)) {
    throw new AppError(
      ErrorCode.UNPROCESSABLE,
      "email must be the address of one of your connected mailboxes",
    );
  }
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const steps: TaskStep[] = STEP_NAMES.map((name) => ({ name, status: "pending", duration: null }));
  const service = normalizeHost(url.hostname) ?? url.hostname;
  await repo.insertTask(
    db,
    {
      id,
      userId,
      service,
      serviceUrl: url.toString(),
      email,
      passwordId: input.passwordId ?? null,
      clientPublicKey: input.clientPublicKey ?? null,
      status: "pending",
      steps,
      createdAt: now,
      updatedAt: now,
    },
    auditInsert(db, {
      userId,
      action: "reset.start",
      targetType: "reset_task",
      targetId: id,
      meta,
      details: { service },
    }),
  );
  await requireBrowserCapacity(
    env,
    userId,
    { perUser: config.MAX_LIVE_BROWSERS_PER_USER, global: config.MAX_LIVE_BROWSERS },
    () => repo.deleteTask(db, userId, id),
  );
  await taskProgress(env.TASK_PROGRESS, id).publish({
    event: "status",
    data: { status: "pending" },
  });
  try {
    await env.RESET_QUEUE.send({ taskId: id, userId });
  } catch {
    await repo.updateTask(db, userId, id, {
      status: "failed",
      error: "could not be queued",
      updatedAt: new Date().toISOString(),
    });
    await recordResetOutcome(
      db,
      { id, userId, service, passwordId: input.passwordId ?? null },
      { status: "failed", error: "could not be queued" },
    );
    await taskProgress(env.TASK_PROGRESS, id).publish({
      event: "status",
      data: { status: "failed", error: "could not be queued" },
    });
    throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "The reset queue is unavailable");
  }
  return { taskId: id, status: "pending" as const };
}

export async function getTaskRecord(env: Bindings, userId: string, id: string) {
  const row = await repo.findTask(dbFor(env, userId), userId, id);
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
  if (!(await repo.findTask(dbFor(env, userId), userId, id))) throw notFound("Task");
  return taskProgress(env.TASK_PROGRESS, id).stream();
}

const OPEN = new Set(["pending", "running", "waiting_for_email", "waiting_for_otp"]);

/** Holds a code for the flow; accepted only while the task can still use it. */
export async function submitOtp(env: Bindings, userId: string, id: string, code: string) {
  const row = await repo.findTask(dbFor(env, userId), userId, id);
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
  const row = await repo.findTask(db, userId, id);
  if (!row) throw notFound("Task");
  const steps = row.steps.map((s) =>
    s.status === "pending" || s.status === "running" ? { ...s, status: "skipped" } : s,
  );
  if (!(await repo.cancelTaskRow(db, userId, id, steps, new Date().toISOString()))) {
    const now = await repo.findTask(db, userId, id);
    if (now && OPEN.has(now.status))
      throw conflict("The new password is already being set; the reset can no longer be cancelled");
    throw conflict("The task has already ended");
  }
  await taskProgress(env.TASK_PROGRESS, id).cancel();
  return { taskId: id, status: "cancelled" as const };
}
