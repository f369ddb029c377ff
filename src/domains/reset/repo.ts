import { and, eq, inArray, isNull, lt, ne, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { resetTasks, type ResetTaskRow } from "../../db/schema";
import { auditDelete } from "../audit";

/** Statuses of a task some run is working on; a lease covers them. */
export const IN_FLIGHT = ["running", "waiting_for_email", "waiting_for_otp"];

/** The task and, when given, its audit event in one batch: a task exists only with its `reset.start`. */
export async function insertTask(
  db: Db,
  row: typeof resetTasks.$inferInsert,
  audit?: BatchItem<"sqlite">,
): Promise<void> {
  const insert = db.insert(resetTasks).values(row);
  await (audit ? db.batch([insert, audit]) : insert.run());
}

/** Undoes a task refused right after its insert: the task and its `reset.start` go together. */
export async function deleteTask(db: Db, userId: string, id: string): Promise<void> {
  await db.batch([
    db.delete(resetTasks).where(and(eq(resetTasks.userId, userId), eq(resetTasks.id, id))),
    auditDelete(db, userId, id),
  ]);
}

export async function findTask(
  db: Db,
  userId: string,
  id: string,
): Promise<ResetTaskRow | undefined> {
  return db
    .select()
    .from(resetTasks)
    .where(and(eq(resetTasks.userId, userId), eq(resetTasks.id, id)))
    .get();
}

export type Lease = { id: string; expiresAt: string };

/**
 * Takes the task for one run, in one statement: a pending task, or an in-flight one whose lease has
 * run out (its worker died). A live lease is never taken, so no task runs twice at once; `maxRuns`
 * bounds the takeovers.
 */
export async function claimTask(
  db: Db,
  userId: string,
  id: string,
  at: string,
  lease: Lease,
  maxRuns: number,
): Promise<ResetTaskRow | undefined> {
  const abandoned = and(
    inArray(resetTasks.status, IN_FLIGHT),
    or(isNull(resetTasks.leaseExpiresAt), lt(resetTasks.leaseExpiresAt, at)),
  );
  return db
    .update(resetTasks)
    .set({
      status: "running",
      startedAt: at,
      updatedAt: at,
      leaseId: lease.id,
      leaseExpiresAt: lease.expiresAt,
      runs: sql`${resetTasks.runs} + 1`,
    })
    .where(
      and(
        eq(resetTasks.userId, userId),
        eq(resetTasks.id, id),
        lt(resetTasks.runs, maxRuns),
        or(eq(resetTasks.status, "pending"), abandoned),
      ),
    )
    .returning()
    .get();
}

export async function updateTask(
  db: Db,
  userId: string,
  id: string,
  set: Partial<ResetTaskRow>,
): Promise<void> {
  await db
    .update(resetTasks)
    .set(set)
    .where(and(eq(resetTasks.userId, userId), eq(resetTasks.id, id)))
    .run();
}

/**
 * A write by the run holding `leaseId`; false when another run has taken the task over or the
 * owner has cancelled it (the run then stops).
 */
export async function updateLeased(
  db: Db,
  userId: string,
  id: string,
  leaseId: string,
  set: Partial<ResetTaskRow>,
): Promise<boolean> {
  const row = await db
    .update(resetTasks)
    .set(set)
    .where(
      and(
        eq(resetTasks.userId, userId),
        eq(resetTasks.id, id),
        eq(resetTasks.leaseId, leaseId),
        ne(resetTasks.status, "cancelled"),
      ),
    )
    .returning({ id: resetTasks.id })
    .get();
  return row !== undefined;
}

/** Statuses a task can be cancelled from. */
export const CANCELLABLE = ["pending", ...IN_FLIGHT];

/**
 * Cancels a task that has not ended, in one statement, unless its last step (setting the new
 * password) has begun: from then on the site may hold the new password, and only completing the
 * run delivers it to the owner. Returns whether the task was cancelled.
 */
export async function cancelTaskRow(
  db: Db,
  userId: string,
  id: string,
  steps: ResetTaskRow["steps"],
  at: string,
): Promise<boolean> {
  const row = await db
    .update(resetTasks)
    .set({ status: "cancelled", steps, updatedAt: at, completedAt: at, leaseExpiresAt: at })
    .where(
      and(
        eq(resetTasks.userId, userId),
        eq(resetTasks.id, id),
        inArray(resetTasks.status, CANCELLABLE),
        sql`coalesce((select json_extract(value, '$.status') from json_each(${resetTasks.steps}) where json_extract(value, '$.name') = 'set_password'), 'pending') = 'pending'`,
      ),
    )
    .returning({ id: resetTasks.id })
    .get();
  return row !== undefined;
}
