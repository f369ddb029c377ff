import { and, desc, eq, inArray, isNull, lt, ne, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { emergencyContacts, type EmergencyContactRow, type EmergencyStatus } from "../../db/schema";

export function listAsOwner(db: Db, ownerId: string) {
  return db.select().from(emergencyContacts).where(eq(emergencyContacts.ownerId, ownerId)).orderBy(desc(emergencyContacts.createdAt), desc(emergencyContacts.id));
}

export function listAsContact(db: Db, contactUserId: string) {
  return db.select().from(emergencyContacts).where(eq(emergencyContacts.contactUserId, contactUserId)).orderBy(desc(emergencyContacts.createdAt), desc(emergencyContacts.id));
}

/** A record the caller takes part in, as owner or as the contact who accepted; anything else is absent. */
export async function findForParty(db: Db, userId: string, id: string): Promise<EmergencyContactRow | undefined> {
  const row = await findById(db, id);
  return row && (row.ownerId === userId || row.contactUserId === userId) ? row : undefined;
}

/** For the timer, which acts for no user: the record by id alone. */
export function findById(db: Db, id: string): Promise<EmergencyContactRow | undefined> {
  return db.select().from(emergencyContacts).where(eq(emergencyContacts.id, id)).get();
}

export function findByTokenHash(db: Db, hash: string): Promise<EmergencyContactRow | undefined> {
  return db.select().from(emergencyContacts).where(eq(emergencyContacts.inviteTokenHash, hash)).get();
}

export function findLiveByEmail(db: Db, ownerId: string, email: string) {
  return db
    .select({ id: emergencyContacts.id })
    .from(emergencyContacts)
    .where(and(eq(emergencyContacts.ownerId, ownerId), eq(emergencyContacts.contactEmail, email), ne(emergencyContacts.status, "revoked")))
    .get();
}

export function insert(db: Db, row: EmergencyContactRow) {
  return db.insert(emergencyContacts).values(row);
}

/** Moves a record only from the states given, so two racing transitions cannot both apply. */
export function transition(db: Db, id: string, from: EmergencyStatus[], set: Partial<EmergencyContactRow>) {
  return db
    .update(emergencyContacts)
    .set(set)
    .where(and(eq(emergencyContacts.id, id), inArray(emergencyContacts.status, from)));
}

/**
 * Claims the one "your vault was read" notification of the current access window: true for the
 * first read after `grantedAt`, false for every later one (the WHERE decides, so two reads at once
 * cannot both claim it).
 */
export async function claimReadNotice(db: Db, id: string, grantedAt: string, now: string): Promise<boolean> {
  const done = await db
    .update(emergencyContacts)
    .set({ vaultReadNotifiedAt: now })
    .where(and(eq(emergencyContacts.id, id), or(isNull(emergencyContacts.vaultReadNotifiedAt), lt(emergencyContacts.vaultReadNotifiedAt, grantedAt))))
    .returning({ id: emergencyContacts.id });
  return done.length > 0;
}

export function updateOwned(db: Db, ownerId: string, id: string, from: EmergencyStatus[], set: Partial<EmergencyContactRow>) {
  return db
    .update(emergencyContacts)
    .set(set)
    .where(and(eq(emergencyContacts.ownerId, ownerId), eq(emergencyContacts.id, id), inArray(emergencyContacts.status, from)));
}
