import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditEvents } from "../../db/schema";
import type { RequestMeta } from "../../kernel/context";
import { randomId } from "../../lib/crypto";

export type AuditInput = {
  userId: string;
  action: string;
  targetType?: string;
  targetId?: string;
  meta?: RequestMeta;
  details?: Record<string, unknown>;
};

/** Builds the audit insert, so a caller can put it in the same D1 batch as the change it records. */
export function auditInsert(db: Db, e: AuditInput) {
  return db.insert(auditEvents).values({
    id: randomId(),
    userId: e.userId,
    action: e.action,
    targetType: e.targetType ?? null,
    targetId: e.targetId ?? null,
    ip: e.meta?.ip ?? null,
    userAgent: e.meta?.userAgent ?? null,
    device: e.meta?.device ?? null,
    details: e.details ?? null,
    createdAt: new Date().toISOString(),
  });
}

/** Only to undo, in the same breath, a change refused right after it was written with its event. */
export function auditDelete(db: Db, userId: string, targetId: string) {
  return db
    .delete(auditEvents)
    .where(and(eq(auditEvents.userId, userId), eq(auditEvents.targetId, targetId)));
}

export async function recordAudit(db: Db, e: AuditInput): Promise<void> {
  await auditInsert(db, e);
}
