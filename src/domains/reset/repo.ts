import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { resetJobs, type ResetJobRow } from "../../db/schema";

export async function insertJob(db: Db, row: typeof resetJobs.$inferInsert): Promise<void> {
  await db.insert(resetJobs).values(row).run();
}

export async function findJob(db: Db, userId: string, id: string): Promise<ResetJobRow | undefined> {
  return db.select().from(resetJobs).where(and(eq(resetJobs.userId, userId), eq(resetJobs.id, id))).get();
}

/** Takes a pending job for one run; a second delivery of the same message finds nothing to take. */
export async function claimJob(db: Db, userId: string, id: string, at: string): Promise<ResetJobRow | undefined> {
  return db
    .update(resetJobs)
    .set({ status: "running", startedAt: at, updatedAt: at })
    .where(and(eq(resetJobs.userId, userId), eq(resetJobs.id, id), eq(resetJobs.status, "pending")))
    .returning()
    .get();
}

export async function updateJob(db: Db, userId: string, id: string, set: Partial<ResetJobRow>): Promise<void> {
  await db.update(resetJobs).set(set).where(and(eq(resetJobs.userId, userId), eq(resetJobs.id, id))).run();
}
