import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { and, asc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../../src/db/schema";
import { signToken, TestUser, type TokenOptions } from "./auth";

export const db = drizzle(env.DB, { schema });
export const DAY = 24 * 60 * 60 * 1000;
export const HOUR = 60 * 60 * 1000;
export const iso = (t: number) => new Date(t).toISOString();

function stub(name: string) {
  return env.RECOVERY_TIMER.get(env.RECOVERY_TIMER.idFromName(name));
}

export const dmsTimer = (userId: string) => `dms:${userId}`;
export const emergencyTimer = (contactId: string) => `emergency:${contactId}`;

/** When the timer's alarm is set for, or null. */
export function alarmAt(name: string): Promise<number | null> {
  return runInDurableObject(stub(name), (_instance, state) => state.storage.getAlarm());
}

/** Runs the timer's alarm now (false when none is scheduled). */
export function fireAlarm(name: string): Promise<boolean> {
  return runDurableObjectAlarm(stub(name));
}

/**
 * Mails to an address, oldest first. Sorted here as well: with several shards each sender's mail is
 * in the sender's shard's outbox, and the rows of several databases come back one database after another.
 */
export async function outbox(to: string) {
  const rows = await db
    .select()
    .from(schema.outboundEmails)
    .where(eq(schema.outboundEmails.toAddress, to.toLowerCase()))
    .orderBy(asc(schema.outboundEmails.createdAt))
    .all();
  return rows.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export function notificationsOf(userId: string, type?: string) {
  const where = type
    ? and(eq(schema.notifications.userId, userId), eq(schema.notifications.type, type))
    : eq(schema.notifications.userId, userId);
  return db
    .select()
    .from(schema.notifications)
    .where(where)
    .orderBy(asc(schema.notifications.createdAt))
    .all();
}

export function auditOf(userId: string, action: string) {
  return db
    .select()
    .from(schema.auditEvents)
    .where(and(eq(schema.auditEvents.userId, userId), eq(schema.auditEvents.action, action)))
    .all();
}

export function switchRow(userId: string) {
  return db
    .select()
    .from(schema.deadManSwitches)
    .where(eq(schema.deadManSwitches.userId, userId))
    .get();
}

/** Moves the switch's clock: its last check-in becomes `daysAgo` days ago (the trigger follows). */
export async function rewindSwitch(userId: string, daysAgo: number) {
  const row = (await switchRow(userId))!;
  const last = Date.now() - daysAgo * DAY;
  await db
    .update(schema.deadManSwitches)
    .set({ lastCheckIn: iso(last), nextTriggerAt: iso(last + row.inactivityDays * DAY) })
    .where(eq(schema.deadManSwitches.userId, userId));
}

export async function setSwitch(userId: string, set: Partial<schema.DeadManSwitchRow>) {
  await db.update(schema.deadManSwitches).set(set).where(eq(schema.deadManSwitches.userId, userId));
}

export function contactRow(id: string) {
  return db
    .select()
    .from(schema.emergencyContacts)
    .where(eq(schema.emergencyContacts.id, id))
    .get();
}

export async function setContact(id: string, set: Partial<schema.EmergencyContactRow>) {
  await db.update(schema.emergencyContacts).set(set).where(eq(schema.emergencyContacts.id, id));
}

/** The same account signing in again (a fresh auth_time). */
export async function signedInAgain(user: TestUser, opts: TokenOptions = {}): Promise<TestUser> {
  return new TestUser(
    await signToken({ sub: user.id, email: user.email, ...opts }),
    user.id,
    user.email,
  );
}

export const wrappedKey = () =>
  btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(48))));
