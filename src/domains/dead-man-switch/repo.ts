import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import {
  deadManSwitches,
  deadManSwitchLogs,
  deadManSwitchRecipients,
  type DeadManSwitchRecipientRow,
  type DeadManSwitchRow,
  type RecipientStatus,
} from "../../db/schema";
import { rowsChanged } from "../../db/d1";
import { randomId } from "../../lib/crypto";

export const RECENT_LOGS = 20;

export function switchQuery(db: Db, userId: string) {
  return db.select().from(deadManSwitches).where(eq(deadManSwitches.userId, userId)).limit(1);
}

export function findSwitch(db: Db, userId: string): Promise<DeadManSwitchRow | undefined> {
  return db.select().from(deadManSwitches).where(eq(deadManSwitches.userId, userId)).get();
}

export function insertSwitch(db: Db, row: DeadManSwitchRow) {
  return db
    .insert(deadManSwitches)
    .values(row)
    .onConflictDoNothing({ target: deadManSwitches.userId });
}

export function updateSwitch(db: Db, userId: string, set: Partial<DeadManSwitchRow>) {
  return db.update(deadManSwitches).set(set).where(eq(deadManSwitches.userId, userId));
}

/**
 * Writes only if the switch is still in the state the caller read (same last check-in and status),
 * so a timer tick never overwrites a check-in that raced it.
 */
export function updateSwitchIfUnchanged(
  db: Db,
  row: DeadManSwitchRow,
  set: Partial<DeadManSwitchRow>,
) {
  return db
    .update(deadManSwitches)
    .set(set)
    .where(
      and(
        eq(deadManSwitches.userId, row.userId),
        eq(deadManSwitches.lastCheckIn, row.lastCheckIn),
        eq(deadManSwitches.status, row.status),
        eq(deadManSwitches.updatedAt, row.updatedAt),
      ),
    );
}

/** A sign-in later than the last check-in resets the timer: one conditional statement. */
export function resetOnSignIn(
  db: Db,
  userId: string,
  authTimeIso: string,
  set: Partial<DeadManSwitchRow>,
) {
  return db
    .update(deadManSwitches)
    .set(set)
    .where(
      and(
        eq(deadManSwitches.userId, userId),
        eq(deadManSwitches.enabled, true),
        lt(deadManSwitches.lastCheckIn, authTimeIso),
      ),
    )
    .returning({ id: deadManSwitches.id });
}

export function deleteSwitch(db: Db, userId: string) {
  return db.delete(deadManSwitches).where(eq(deadManSwitches.userId, userId));
}

export function recipientsQuery(db: Db, ownerId: string) {
  return db
    .select()
    .from(deadManSwitchRecipients)
    .where(eq(deadManSwitchRecipients.ownerId, ownerId))
    .orderBy(deadManSwitchRecipients.createdAt, deadManSwitchRecipients.id);
}

export function listRecipients(db: Db, ownerId: string): Promise<DeadManSwitchRecipientRow[]> {
  return recipientsQuery(db, ownerId).all();
}

/**
 * Adds a recipient only while the owner has fewer than `max` and none at this address: the count
 * and the insert are one statement, so parallel adds cannot pass the cap (docs/decisions/hardening.md, "Hardening: limits, abuse and failure" item 10).
 * False when refused; the caller tells which rule refused it.
 */
export async function insertRecipientUnderCap(
  db: Db,
  row: DeadManSwitchRecipientRow,
  max: number,
): Promise<boolean> {
  const res = await db.run(sql`
    INSERT INTO dead_man_switch_recipients (id, owner_id, switch_id, user_id, recipient_email, recipient_name, status, wrapped_recovery_key, released_at, created_at)
    SELECT ${row.id}, ${row.ownerId}, ${row.switchId}, ${row.userId}, ${row.recipientEmail}, ${row.recipientName}, ${row.status},
      ${row.wrappedRecoveryKey}, ${row.releasedAt}, ${row.createdAt}
    WHERE (SELECT count(*) FROM dead_man_switch_recipients WHERE owner_id = ${row.ownerId}) < ${max}
    ON CONFLICT DO NOTHING`);
  return rowsChanged(res) > 0;
}

export function deleteRecipient(db: Db, ownerId: string, id: string) {
  return db
    .delete(deadManSwitchRecipients)
    .where(and(eq(deadManSwitchRecipients.ownerId, ownerId), eq(deadManSwitchRecipients.id, id)));
}

export function deleteRecipients(db: Db, ownerId: string) {
  return db.delete(deadManSwitchRecipients).where(eq(deadManSwitchRecipients.ownerId, ownerId));
}

export function setRecipientsStatus(
  db: Db,
  ownerId: string,
  status: RecipientStatus,
  releasedAt: string | null,
) {
  return db
    .update(deadManSwitchRecipients)
    .set({ status, releasedAt })
    .where(eq(deadManSwitchRecipients.ownerId, ownerId));
}

/** Transfers naming the caller: by the account they were bound to, or by the caller's address. */
export function transfersFor(
  db: Db,
  userId: string,
  email: string | null,
): Promise<DeadManSwitchRecipientRow[]> {
  const mine = email
    ? or(
        eq(deadManSwitchRecipients.userId, userId),
        and(
          isNull(deadManSwitchRecipients.userId),
          eq(deadManSwitchRecipients.recipientEmail, email),
        ),
      )
    : eq(deadManSwitchRecipients.userId, userId);
  return db
    .select()
    .from(deadManSwitchRecipients)
    .where(mine)
    .orderBy(desc(deadManSwitchRecipients.createdAt))
    .all();
}

export function bindRecipient(db: Db, id: string, userId: string, email: string) {
  return db
    .update(deadManSwitchRecipients)
    .set({ userId })
    .where(
      and(
        eq(deadManSwitchRecipients.id, id),
        isNull(deadManSwitchRecipients.userId),
        eq(deadManSwitchRecipients.recipientEmail, email),
      ),
    );
}

export function insertLog(
  db: Db,
  ownerId: string,
  action: string,
  details: Record<string, unknown> = {},
  at = new Date().toISOString(),
) {
  return db
    .insert(deadManSwitchLogs)
    .values({ id: randomId(), ownerId, action, details, timestamp: at });
}

export function recentLogs(db: Db, ownerId: string) {
  return db
    .select()
    .from(deadManSwitchLogs)
    .where(eq(deadManSwitchLogs.ownerId, ownerId))
    .orderBy(desc(deadManSwitchLogs.timestamp), desc(deadManSwitchLogs.id))
    .limit(RECENT_LOGS);
}

export function deleteLogs(db: Db, ownerId: string) {
  return db.delete(deadManSwitchLogs).where(eq(deadManSwitchLogs.ownerId, ownerId));
}
