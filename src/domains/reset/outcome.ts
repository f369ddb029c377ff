import type { Db } from "../../db/client";
import { auditInsert } from "../audit";
import { notificationInsert } from "../notifications";

type EndedTask = { id: string; userId: string; service: string; passwordId: string | null };

/**
 * The owner's record of an ended reset (DECISIONS D17): `reset.complete` or `reset.fail` in the
 * audit log, and for a completed one a `password_reset` notification, written together. The new
 * password is never part of either.
 */
export async function recordResetOutcome(
  db: Db,
  task: EndedTask,
  outcome: { status: "completed" } | { status: "failed"; error: string },
): Promise<void> {
  const details = {
    service: task.service,
    ...(outcome.status === "failed" ? { error: outcome.error } : {}),
  };
  const audit = auditInsert(db, {
    userId: task.userId,
    action: outcome.status === "completed" ? "reset.complete" : "reset.fail",
    targetType: "reset_task",
    targetId: task.id,
    details,
  });
  if (outcome.status !== "completed") {
    await audit.run();
    return;
  }
  const note = notificationInsert(db, {
    userId: task.userId,
    type: "password_reset",
    title: "Password reset completed",
    body: `Your ${task.service} password was reset. Open the vault on the device that started it to save the new password.`,
    color: "success",
    actionUrl: task.passwordId ? `/vault/${task.passwordId}` : "/vault",
    metadata: { task_id: task.id, service: task.service, password_id: task.passwordId },
  });
  await db.batch([audit, note.query]);
}
