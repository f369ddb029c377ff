import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** `launchMs` (navigate only): how much of the run went into starting the browser. */
export type TaskStep = { name: string; status: string; duration: number | null; launchMs?: number };

/**
 * A password-reset task (DECISIONS D14): the spec's `GET /api/jobs/<id>` shows it as a "job", and
 * the table keeps its first name. Nothing readable is stored.
 */
export const resetTasks = sqliteTable(
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
    steps: text("steps", { mode: "json" }).$type<TaskStep[]>().notNull(),
    startedAt: text("started_at"),
    completedAt: text("completed_at"),
    /** The run holding the task: only it may write; another delivery may take over once it expires. */
    leaseId: text("lease_id"),
    leaseExpiresAt: text("lease_expires_at"),
    /** Runs started (claims), retries after a dead worker included. */
    runs: integer("runs").notNull().default(0),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("reset_jobs_user_created").on(t.userId, t.createdAt)],
);

export type ResetTaskRow = typeof resetTasks.$inferSelect;
