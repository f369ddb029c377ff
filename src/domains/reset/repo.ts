import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
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

/** A write by the run holding `leaseId`; false when another run has taken the job over. */
export async function updateLeased(db: Db, userId: string, id: string, leaseId: string, set: Partial<ResetJobRow>): Promise<boolean> {
  const row = await db
    .update(resetJobs)
    .set(set)
    .where(and(eq(resetJobs.userId, userId), eq(resetJobs.id, id), eq(resetJobs.leaseId, leaseId)))
    .returning({ id: resetJobs.id })
    .get();
  return row !== undefined;
}
