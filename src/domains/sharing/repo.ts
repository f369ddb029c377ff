import { advanceClock, clockValue } from "../../db/change-clock";
import { and, desc, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { passwords, shares, shareViewLogs, sharingKeys, type ShareRow } from "../../db/schema";
import { rawD1, rowsChanged } from "../../db/d1";
import { keysetPage, type Order } from "../../db/keyset";
import type { Page, PageParams } from "../../kernel/pagination";

/** Live for access and for limits: not revoked and not past its expiry. */
const unexpired = (now: string) => or(isNull(shares.expiresAt), gt(shares.expiresAt, now));

const accountCols = {
  accountName: passwords.name,
  accountWebsite: passwords.website,
  accountUrl: passwords.url,
  accountEncryptedData: passwords.encryptedData,
};
export type ShareWithAccount = ShareRow & { accountName: string; accountWebsite: string | null; accountUrl: string | null; accountEncryptedData: string | null };

const liveEntry = and(eq(passwords.id, shares.accountId), eq(passwords.userId, shares.ownerId), isNull(passwords.deletedAt));

/** Newest first; `created_at` never changes, so a page boundary never moves. */
const NEWEST: Order<typeof shares> = { dir: "desc", keys: (t) => [t.createdAt] };

export async function listOwned(db: Db, ownerId: string, accountId: string | undefined, page: PageParams): Promise<Page<ShareWithAccount>> {
  const scope = (t: typeof shares) => and(eq(t.ownerId, ownerId), accountId ? eq(t.accountId, accountId) : undefined);
  return keysetPage(db, { table: shares, order: NEWEST, scope, page }, ({ after, orderBy, take }) =>
    db
      .select({ ...sharesCols(), ...accountCols })
      .from(shares)
      .innerJoin(passwords, liveEntry)
      .where(and(scope(shares), after))
      .orderBy(...orderBy)
      .limit(take)
      .all(),
  );
}

/**
 * Shares a user may see as recipient: bound to them, or still pending for their email. Revoked,
 * expired and shares of deleted entries are left out, so they give no access.
 */
export async function listReceived(db: Db, userId: string, email: string | null, now: string, accountId: string | undefined, page: PageParams): Promise<Page<ShareWithAccount>> {
  // The scope leaves out the revoked and expiry filters, so a share bound to the caller that was
  // revoked or expired since the last page still marks a position.
  const scope = (t: typeof shares) => and(recipientMatch(userId, email, t), ne(t.ownerId, userId), accountId ? eq(t.accountId, accountId) : undefined);
  return keysetPage(db, { table: shares, order: NEWEST, scope, page }, ({ after, orderBy, take }) =>
    db
      .select({ ...sharesCols(), ...accountCols })
      .from(shares)
      .innerJoin(passwords, liveEntry)
      .where(and(scope(shares), ne(shares.status, "revoked"), unexpired(now), after))
      .orderBy(...orderBy)
      .limit(take)
      .all(),
  );
}

function recipientMatch(userId: string, email: string | null, t: typeof shares = shares) {
  const bound = eq(t.recipientId, userId);
  if (!email) return bound;
  return or(bound, and(isNull(t.recipientId), eq(t.status, "pending"), eq(t.recipientEmail, email)))!;
}

function sharesCols() {
  const { id, accountId, ownerId, recipientId, recipientEmail, status, permission, wrappedVaultKeyInvite, inviteTokenSalt, expiresAt, acceptedAt, createdAt, updatedAt } =
    shares;
  return { id, accountId, ownerId, recipientId, recipientEmail, status, permission, wrappedVaultKeyInvite, inviteTokenSalt, expiresAt, acceptedAt, createdAt, updatedAt };
}

export async function findOwned(db: Db, ownerId: string, id: string): Promise<ShareWithAccount | undefined> {
  return db
    .select({ ...sharesCols(), ...accountCols })
    .from(shares)
    .innerJoin(passwords, liveEntry)
    .where(and(eq(shares.id, id), eq(shares.ownerId, ownerId)))
    .get();
}

export async function findReceived(db: Db, userId: string, email: string | null, id: string, now: string): Promise<ShareWithAccount | undefined> {
  return db
    .select({ ...sharesCols(), ...accountCols })
    .from(shares)
    .innerJoin(passwords, liveEntry)
    .where(and(eq(shares.id, id), recipientMatch(userId, email), ne(shares.status, "revoked"), unexpired(now), ne(shares.ownerId, userId)))
    .get();
}

export async function findLiveDuplicate(db: Db, ownerId: string, accountId: string, email: string) {
  return db
    .select({ id: shares.id })
    .from(shares)
    .where(and(eq(shares.ownerId, ownerId), eq(shares.accountId, accountId), eq(shares.recipientEmail, email), ne(shares.status, "revoked")))
    .get();
}

/** share_count on the entry: the shares not revoked, recomputed in the same batch as each change. */
function shareCountUpdate(db: Db, ownerId: string, accountId: string) {
  return db
    .update(passwords)
    .set({
      shareCount: sql`(SELECT count(*) FROM shares WHERE shares.account_id = ${accountId} AND shares.owner_id = ${ownerId} AND shares.status <> 'revoked')`,
    })
    .where(and(eq(passwords.id, accountId), eq(passwords.userId, ownerId)));
}

/**
 * Inserts the share only while both limits hold, in one statement, so concurrent creates cannot
 * overshoot; share_count follows in the same transaction.
 */
export async function insertUnderLimits(db: Db, row: ShareRow, now: string, perEntry: number, perUser: number): Promise<boolean> {
  // drizzle's sqlite insert builder cannot guard an INSERT ... SELECT with a WHERE, so this one is raw.
  const d1 = rawD1(db);
  const [inserted] = await d1.batch([
    d1
      .prepare(
        `INSERT INTO shares (id, account_id, owner_id, recipient_id, recipient_email, status, permission, wrapped_vault_key_invite,
           invite_token_salt, expires_at, accepted_at, created_at, updated_at)
         SELECT ?1, ?2, ?3, NULL, ?4, 'pending', ?5, ?6, ?7, ?8, NULL, ?9, ?9
         WHERE (SELECT count(*) FROM shares WHERE account_id = ?2 AND owner_id = ?3
                  AND status <> 'revoked' AND (expires_at IS NULL OR expires_at > ?10)) < ?11
           AND (SELECT count(*) FROM shares WHERE owner_id = ?3
                  AND status <> 'revoked' AND (expires_at IS NULL OR expires_at > ?10)) < ?12`,
      )
      .bind(row.id, row.accountId, row.ownerId, row.recipientEmail, row.permission, row.wrappedVaultKeyInvite, row.inviteTokenSalt, row.expiresAt, row.createdAt, now, perEntry, perUser),
    d1
      .prepare(
        `UPDATE passwords SET share_count =
           (SELECT count(*) FROM shares WHERE account_id = ?1 AND owner_id = ?2 AND status <> 'revoked')
         WHERE id = ?1 AND user_id = ?2`,
      )
      .bind(row.accountId, row.ownerId),
  ]);
  return rowsChanged(inserted) > 0;
}

export async function ownerUpdate(db: Db, share: ShareRow, set: Partial<ShareRow>): Promise<boolean> {
  const [res] = await db.batch([
    db
      .update(shares)
      .set(set)
      .where(and(eq(shares.id, share.id), eq(shares.ownerId, share.ownerId), eq(shares.status, share.status))),
    shareCountUpdate(db, share.ownerId, share.accountId),
  ]);
  return rowsChanged(res) > 0;
}

/** Binds the recipient; the WHERE repeats every condition so a concurrent revoke wins. */
export async function accept(db: Db, id: string, userId: string, email: string, now: string): Promise<boolean> {
  const res = await db
    .update(shares)
    .set({ status: "active", recipientId: userId, acceptedAt: now, updatedAt: now })
    .where(and(eq(shares.id, id), eq(shares.status, "pending"), isNull(shares.recipientId), eq(shares.recipientEmail, email), ne(shares.ownerId, userId), unexpired(now)))
    .run();
  return rowsChanged(res) > 0;
}

export async function remove(db: Db, ownerId: string, share: ShareRow): Promise<boolean> {
  const [res] = await db.batch([
    db
      .delete(shares)
      .where(and(eq(shares.id, share.id), eq(shares.ownerId, ownerId))),
    db.delete(shareViewLogs).where(and(eq(shareViewLogs.shareId, share.id), eq(shareViewLogs.ownerId, ownerId))),
    shareCountUpdate(db, ownerId, share.accountId),
  ]);
  return rowsChanged(res) > 0;
}

/** The condition a recipient's access is checked against at the moment of access. */
export function activeRecipientShare(id: string, userId: string, now: string, permission?: "write") {
  return sql`EXISTS (SELECT 1 FROM shares WHERE shares.id = ${id} AND shares.recipient_id = ${userId}
    AND shares.status = 'active' AND (shares.expires_at IS NULL OR shares.expires_at > ${now})
    ${permission ? sql`AND shares.permission = ${permission}` : sql``})`;
}

export function viewLogInsert(db: Db, row: typeof shareViewLogs.$inferInsert) {
  return db.insert(shareViewLogs).values(row);
}

/** Updates the owner's entry for a write recipient, only while the share still grants write. */
export async function updateSharedEntry(
  db: Db,
  share: { id: string; ownerId: string; accountId: string },
  userId: string,
  now: string,
  set: Partial<typeof passwords.$inferInsert>,
): Promise<boolean> {
  // The owner's commit clock moves with the edit, so the owner's devices see it in a delta pull.
  const [, res] = await db.batch([
    advanceClock(db, share.ownerId),
    db
      .update(passwords)
      .set({ ...set, changeSeq: clockValue(share.ownerId) })
      .where(
        and(
          eq(passwords.id, share.accountId),
          eq(passwords.userId, share.ownerId),
          isNull(passwords.deletedAt),
          activeRecipientShare(share.id, userId, now, "write"),
        ),
      ),
  ]);
  return rowsChanged(res) > 0;
}

export async function getKey(db: Db, userId: string) {
  return db.select().from(sharingKeys).where(eq(sharingKeys.userId, userId)).get();
}

/** The first account to publish under an address holds it (putKey refuses any later one). */
export async function getKeyByEmail(db: Db, email: string) {
  return db.select().from(sharingKeys).where(eq(sharingKeys.email, email)).orderBy(sharingKeys.createdAt).get();
}

/** The owner's view log of one of their shares, newest first. */
export async function viewLog(db: Db, ownerId: string, shareId: string) {
  return db
    .select({ action: shareViewLogs.action, createdAt: shareViewLogs.createdAt })
    .from(shareViewLogs)
    .where(and(eq(shareViewLogs.ownerId, ownerId), eq(shareViewLogs.shareId, shareId)))
    .orderBy(desc(shareViewLogs.createdAt))
    .limit(200)
    .all();
}

/**
 * Publishes or replaces the user's key, unless another account already holds one under this
 * address: one statement, so two accounts racing for the same address cannot both get it.
 * Returns undefined when the address belongs to another account.
 */
export async function putKey(db: Db, userId: string, email: string, publicKey: string, now: string, wrappedPrivateKey: string | null) {
  const res = await db.run(sql`
    INSERT INTO sharing_keys (user_id, email, public_key, wrapped_private_key, created_at, updated_at)
    SELECT ${userId}, ${email}, ${publicKey}, ${wrappedPrivateKey}, ${now}, ${now}
    WHERE NOT EXISTS (SELECT 1 FROM sharing_keys WHERE email = ${email} AND user_id <> ${userId})
    ON CONFLICT (user_id) DO UPDATE SET email = excluded.email, public_key = excluded.public_key,
      wrapped_private_key = excluded.wrapped_private_key, updated_at = excluded.updated_at`);
  if (rowsChanged(res) === 0) return undefined;
  return getKey(db, userId);
}
