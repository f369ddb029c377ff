import type { Db } from "../../db/client";
import { auditInsert } from "../audit";
import { notificationInsert } from "../notifications";

type EndedJob = { id: string; userId: string; service: string; passwordId: string | null };

/**
 * The owner's record of an ended reset (DECISIONS D17): `reset.complete` or `reset.fail` in the
 * audit log, and for a completed one a `password_reset` notification, written together. The new
 * password is never part of either.
 */
export async function recordResetOutcome(db: Db, job: EndedJob, outcome: { status: "completed" } | { status: "failed"; error: string }): Promise<void> {
  const details = { service: job.service, ...(outcome.status === "failed" ? { error: outcome.error } : {}) };
  const audit = auditInsert(db, { userId: job.userId, action: outcome.status === "completed" ? "reset.complete" : "reset.fail", targetType: "reset_task", targetId: job.id, details });
  if (outcome.status !== "completed") {
    await audit.run();
    return;
  }
  const note = notificationInsert(db, {
    userId: job.userId,
    type: "password_reset",
    title: "Password reset completed",
    body: `Your ${job.service} password was reset. Open the vault on the device that started it to save the new password.`,
    color: "success",
    actionUrl: job.passwordId ? `/vault/${job.passwordId}` : "/vault",
    metadata: { task_id: job.id, service: job.service, password_id: job.passwordId },
  });
  await db.batch([audit, note.query]);
}
