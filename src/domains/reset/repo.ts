import { and, eq, inArray, isNull, lt, ne, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { resetJobs, type ResetJobRow } from "../../db/schema";
import { auditDelete } from "../audit";

/** Statuses of a job some run is working on; a lease covers them. */
export const IN_FLIGHT = ["running", "waiting_for_email", "waiting_for_otp"];

/** The job and, when given, its audit event in one batch: a task exists only with its `reset.start`. */
export async function insertJob(db: Db, row: typeof resetJobs.$inferInsert, audit?: BatchItem<"sqlite">): Promise<void> {
  const insert = db.insert(resetJobs).values(row);
  await (audit ? db.batch([insert, audit]) : insert.run());
}

/** Undoes a job refused right after its insert: the job and its `reset.start` go together. */
export async function deleteJob(db: Db, userId: string, id: string): Promise<void> {
  await db.batch([db.delete(resetJobs).where(and(eq(resetJobs.userId, userId), eq(resetJobs.id, id))), auditDelete(db, userId, id)]);
}

export async function findJob(db: Db, userId: string, id: string): Promise<ResetJobRow | undefined> {
  return db.select().from(resetJobs).where(and(eq(resetJobs.userId, userId), eq(resetJobs.id, id))).get();
}

export type Lease = { id: string; expiresAt: string };

/**
 * Takes the job for one run, in one statement: a pending job, or an in-flight one whose lease has
 * run out (its worker died). A live lease is never taken, so no job runs twice at once; `maxRuns`
 * bounds the takeovers.
 */
export async function claimJob(db: Db, userId: string, id: string, at: string, lease: Lease, maxRuns: number): Promise<ResetJobRow | undefined> {
  const abandoned = and(inArray(resetJobs.status, IN_FLIGHT), or(isNull(resetJobs.leaseExpiresAt), lt(resetJobs.leaseExpiresAt, at)));
  return db
    .update(resetJobs)
    .set({ status: "running", startedAt: at, updatedAt: at, leaseId: lease.id, leaseExpiresAt: lease.expiresAt, runs: sql`${resetJobs.runs} + 1` })
    .where(and(eq(resetJobs.userId, userId), eq(resetJobs.id, id), lt(resetJobs.runs, maxRuns), or(eq(resetJobs.status, "pending"), abandoned)))
    .returning()
    .get();
}

export async function updateJob(db: Db, userId: string, id: string, set: Partial<ResetJobRow>): Promise<void> {
  await db.update(resetJobs).set(set).where(and(eq(resetJobs.userId, userId), eq(resetJobs.id, id))).run();
}

/**
 * A write by the run holding `leaseId`; false when another run has taken the job over or the
 * owner has cancelled it (the run then stops).
 */
export async function updateLeased(db: Db, userId: string, id: string, leaseId: string, set: Partial<ResetJobRow>): Promise<boolean> {
  const row = await db
    .update(resetJobs)
    .set(set)
    .where(and(eq(resetJobs.userId, userId), eq(resetJobs.id, id), eq(resetJobs.leaseId, leaseId), ne(resetJobs.status, "cancelled")))
    .returning({ id: resetJobs.id })
    .get();
  return row !== undefined;
}

/** Statuses a job can be cancelled from. */
export const CANCELLABLE = ["pending", ...IN_FLIGHT];

/**
 * Cancels a job that has not ended, in one statement, unless its last step (setting the new
 * password) has begun: from then on the site may hold the new password, and only completing the
 * run delivers it to the owner. Returns whether the job was cancelled.
 */
export async function cancelJob(db: Db, userId: string, id: string, steps: ResetJobRow["steps"], at: string): Promise<boolean> {
  const row = await db
    .update(resetJobs)
    .set({ status: "cancelled", steps, updatedAt: at, completedAt: at, leaseExpiresAt: at })
    .where(
      and(
        eq(resetJobs.userId, userId),
        eq(resetJobs.id, id),
        inArray(resetJobs.status, CANCELLABLE),
        sql`coalesce((select json_extract(value, '$.status') from json_each(${resetJobs.steps}) where json_extract(value, '$.name') = 'set_password'), 'pending') = 'pending'`,
      ),
    )
    .returning({ id: resetJobs.id })
    .get();
  return row !== undefined;
}
