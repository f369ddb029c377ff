import { and, desc, eq, gt, inArray, isNull, lt, ne, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { emergencyContacts, type EmergencyContactRow, type EmergencyStatus } from "../../db/schema";
import { afterCursor, orderKeys, type Order } from "../../db/keyset";

/** The caller's two lists, read as one sequence: the contacts they named, then those naming them. */
export type Side = "owner" | "contact";

/** Newest first within each side; `created_at` never changes, so a page boundary never moves. */
const NEWEST: Order<typeof emergencyContacts> = { dir: "desc", keys: (t) => [t.createdAt] };

/**
 * Who the caller is to the records: their id, and their verified email with the moment "now", for
 * the invitations addressed to them that are still open (DECISIONS D21).
 */
export type Party = { id: string; email: string | null; now: string };

// An owner cannot accept their own invitation, so the sides never overlap; the `ne` keeps it so,
// since a row on both sides would make a cursor's side ambiguous. The contact side also holds the
// open invitations sent to the caller's verified address (D21), so a person finds them in the app.
const sideScope = (side: Side, party: Party) => (t: typeof emergencyContacts) => {
  if (side === "owner") return eq(t.ownerId, party.id);
  const invited = party.email
    ? and(
        eq(t.status, "pending_invite"),
        eq(t.contactEmail, party.email),
        isNull(t.contactUserId),
        gt(t.inviteExpiresAt, party.now),
      )
    : undefined;
  return and(
    invited ? or(eq(t.contactUserId, party.id), invited) : eq(t.contactUserId, party.id),
    ne(t.ownerId, party.id),
  );
};

/** Up to `take` rows of one side, after the row `cursor` names on that side (if given). */
export function listSide(
  db: Db,
  party: Party,
  side: Side,
  cursor: string | undefined,
  take: number,
) {
  const scope = sideScope(side, party);
  const t = emergencyContacts;
  return db
    .select()
    .from(t)
    .where(and(scope(t), cursor ? afterCursor(t, NEWEST, scope, cursor) : undefined))
    .orderBy(...orderKeys(t, NEWEST))
    .limit(take);
}

/** The side a cursor id is on for this caller, or undefined when it names no record of theirs. */
export async function cursorSide(db: Db, party: Party, id: string): Promise<Side | undefined> {
  const t = emergencyContacts;
  const row = await db
    .select({ ownerId: t.ownerId })
    .from(t)
    .where(and(eq(t.id, id), or(sideScope("owner", party)(t), sideScope("contact", party)(t))))
    .get();
  if (!row) return undefined;
  return row.ownerId === party.id ? "owner" : "contact";
}

/** A record the caller takes part in, as owner or as the contact who accepted; anything else is absent. */
export async function findForParty(
  db: Db,
  userId: string,
  id: string,
): Promise<EmergencyContactRow | undefined> {
  const row = await findById(db, id);
  return row && (row.ownerId === userId || row.contactUserId === userId) ? row : undefined;
}

/** For the timer, which acts for no user: the record by id alone. */
export function findById(db: Db, id: string): Promise<EmergencyContactRow | undefined> {
  return db.select().from(emergencyContacts).where(eq(emergencyContacts.id, id)).get();
}

export function findByTokenHash(db: Db, hash: string): Promise<EmergencyContactRow | undefined> {
  return db
    .select()
    .from(emergencyContacts)
    .where(eq(emergencyContacts.inviteTokenHash, hash))
    .get();
}

export function findLiveByEmail(db: Db, ownerId: string, email: string) {
  return db
    .select({ id: emergencyContacts.id })
    .from(emergencyContacts)
    .where(
      and(
        eq(emergencyContacts.ownerId, ownerId),
        eq(emergencyContacts.contactEmail, email),
        ne(emergencyContacts.status, "revoked"),
      ),
    )
    .get();
}

export function insert(db: Db, row: EmergencyContactRow) {
  return db.insert(emergencyContacts).values(row);
}

/** Moves a record only from the states given, so two racing transitions cannot both apply. */
export function transition(
  db: Db,
  id: string,
  from: EmergencyStatus[],
  set: Partial<EmergencyContactRow>,
) {
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
export async function claimReadNotice(
  db: Db,
  id: string,
  grantedAt: string,
  now: string,
): Promise<boolean> {
  const done = await db
    .update(emergencyContacts)
    .set({ vaultReadNotifiedAt: now })
    .where(
      and(
        eq(emergencyContacts.id, id),
        or(
          isNull(emergencyContacts.vaultReadNotifiedAt),
          lt(emergencyContacts.vaultReadNotifiedAt, grantedAt),
        ),
      ),
    )
    .returning({ id: emergencyContacts.id });
  return done.length > 0;
}

export function updateOwned(
  db: Db,
  ownerId: string,
  id: string,
  from: EmergencyStatus[],
  set: Partial<EmergencyContactRow>,
) {
  return db
    .update(emergencyContacts)
    .set(set)
    .where(
      and(
        eq(emergencyContacts.ownerId, ownerId),
        eq(emergencyContacts.id, id),
        inArray(emergencyContacts.status, from),
      ),
    );
}
