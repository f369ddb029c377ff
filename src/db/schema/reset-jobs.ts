import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

export type JobStep = { name: string; status: string; duration: number | null };

/** A password-reset task; the task id is the job id (DECISIONS D14). Nothing readable is stored. */
export const resetJobs = sqliteTable(
  "reset_jobs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    service: text("service").notNull(),
    serviceUrl: text("service_url").notNull(),
    email: text("email").notNull(),
    passwordId: text("password_id"),
    clientPublicKey: text("client_public_key", { mode: "json" }).$type<JsonWebKey>(),
    status: text("status").notNull(),
    error: text("error"),
    steps: text("steps", { mode: "json" }).$type<JobStep[]>().notNull(),
    startedAt: text("started_at"),
    completedAt: text("completed_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("reset_jobs_user_created").on(t.userId, t.createdAt)],
);

export type ResetJobRow = typeof resetJobs.$inferSelect;
