import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const SESSION_SHARE_STATUSES = [
  "scheduled",
  "login_in_progress",
  "active",
  "paused",
  "revoked",
  "expired",
  "failed",
] as const;
export type SessionShareStatus = (typeof SESSION_SHARE_STATUSES)[number];

export const sessionShares = sqliteTable(
  "session_shares",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    accountId: text("account_id").notNull(),
    serviceName: text("service_name").notNull(),
    loginUrl: text("login_url").notNull(),
    /** SHA-256 hex of the share token; the token itself is returned once and never stored. */
    tokenHash: text("token_hash").notNull(),
    /** D10: username and password sealed together under DATA_ENCRYPTION_KEY. */
    sealedCredentials: text("sealed_credentials").notNull(),
    accessType: text("access_type", { enum: ["full", "view_only"] }).notNull(),
    loginMethod: text("login_method", { enum: ["ai_agent", "manual"] }).notNull(),
    maxViewers: integer("max_viewers").notNull(),
    watermarkEnabled: integer("watermark_enabled", { mode: "boolean" }).notNull(),
    status: text("status", { enum: SESSION_SHARE_STATUSES }).notNull(),
    currentViewers: integer("current_viewers").notNull().default(0),
    durationMinutes: integer("duration_minutes").notNull(),
    estimatedCostCents: integer("estimated_cost_cents").notNull(),
    scheduledStart: text("scheduled_start"),
    expiresAt: text("expires_at").notNull(),
    endedAt: text("ended_at"),
    failureReason: text("failure_reason"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("session_shares_token").on(t.tokenHash),
    index("session_shares_owner").on(t.ownerId, t.createdAt),
  ],
);

export type SessionShareRow = typeof sessionShares.$inferSelect;
