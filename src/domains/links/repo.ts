import { and, desc, eq, inArray, isNotNull, isNull, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawD1, rowsChanged } from "../../db/d1";
import { secureLinkOwners, secureLinks, type SecureLinkRow } from "../../db/schema";

/** The columns of a row as D1 hands them back from a raw `RETURNING *`. */
type RawRow = {
  id: string;
  owner_id: string;
  kind: "text" | "file";
  size: number;
  r2_key: string;
  encrypted_label: string | null;
  sender_email: string | null;
  max_views: number;
  views_used: number;
  expires_at: string;
  passphrase_salt: string | null;
  passphrase_verifier_hash: string | null;
  failed_attempts: number;
  revoked_at: string | null;
  last_opened_at: string | null;
  content_purged_at: string | null;
  created_at: string;
};

const fromRaw = (r: RawRow): SecureLinkRow => ({
  id: r.id,
  ownerId: r.owner_id,
  kind: r.kind,
  size: r.size,
  r2Key: r.r2_key,
  encryptedLabel: r.encrypted_label ? JSON.parse(r.encrypted_label) : null,
  senderEmail: r.sender_email,
  maxViews: r.max_views,
  viewsUsed: r.views_used,
  expiresAt: r.expires_at,
  passphraseSalt: r.passphrase_salt,
  passphraseVerifierHash: r.passphrase_verifier_hash,
  failedAttempts: r.failed_attempts,
  revokedAt: r.revoked_at,
  lastOpenedAt: r.last_opened_at,
  contentPurgedAt: r.content_purged_at,
  createdAt: r.created_at,
});

/** A link whose ciphertext is still held counts against the owner's quotas until it is purged. */
const HELD = "revoked_at IS NULL AND content_purged_at IS NULL";

/**
 * Inserts the row only while the owner stays within both quotas: the checks and the insert are one
 * statement, so parallel creates cannot overshoot them. False when a quota refused it.
 */
export async function insertWithinQuota(db: Db, row: SecureLinkRow, maxOpen: number, quotaBytes: number): Promise<boolean> {
  const res = await rawD1(db)
    .prepare(
      `INSERT INTO secure_links (id, owner_id, kind, size, r2_key, encrypted_label, sender_email, max_views, views_used, expires_at,
         passphrase_salt, passphrase_verifier_hash, failed_attempts, created_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?10, ?11, 0, ?12
       WHERE (SELECT count(*) FROM secure_links WHERE owner_id = ?2 AND ${HELD}) < ?13
         AND (SELECT coalesce(sum(size), 0) FROM secure_links WHERE owner_id = ?2 AND ${HELD}) + ?4 <= ?14`,
    )
    .bind(
      row.id,
      row.ownerId,
      row.kind,
      row.size,
      row.r2Key,
      row.encryptedLabel ? JSON.stringify(row.encryptedLabel) : null,
      row.senderEmail,
      row.maxViews,
      row.expiresAt,
      row.passphraseSalt,
      row.passphraseVerifierHash,
      row.createdAt,
      maxOpen,
      quotaBytes,
    )
    .run();
  return rowsChanged(res) > 0;
}

export async function usage(db: Db, ownerId: string): Promise<{ open: number; bytes: number }> {
  const r = await rawD1(db)
    .prepare(`SELECT count(*) AS open, coalesce(sum(size), 0) AS bytes FROM secure_links WHERE owner_id = ?1 AND ${HELD}`)
    .bind(ownerId)
    .first<{ open: number; bytes: number }>();
  return { open: r?.open ?? 0, bytes: r?.bytes ?? 0 };
}

export async function listOwned(db: Db, ownerId: string, limit: number): Promise<SecureLinkRow[]> {
  return db.select().from(secureLinks).where(eq(secureLinks.ownerId, ownerId)).orderBy(desc(secureLinks.createdAt)).limit(limit).all();
}

export async function findOwned(db: Db, ownerId: string, id: string): Promise<SecureLinkRow | undefined> {
  return db.select().from(secureLinks).where(and(eq(secureLinks.id, id), eq(secureLinks.ownerId, ownerId))).get();
}

/** The opener names a link by its id alone: the id is the capability, resolved on its owner's shard. */
export async function findById(db: Db, id: string): Promise<SecureLinkRow | undefined> {
  return db.select().from(secureLinks).where(eq(secureLinks.id, id)).get();
}

/**
 * Counts one view and returns the row, in one conditional statement: only a link that is live, has
 * a view left, is not locked and whose passphrase (if any) matches is counted. D1 runs statements
 * one at a time, so N parallel opens of a link with N views left give exactly N rows back.
 */
export async function countView(db: Db, id: string, verifierHash: string | null, now: string, maxFailed: number): Promise<SecureLinkRow | undefined> {
  const r = await rawD1(db)
    .prepare(
      `UPDATE secure_links SET views_used = views_used + 1, last_opened_at = ?2
       WHERE id = ?1 AND ${HELD} AND views_used < max_views AND expires_at > ?2 AND failed_attempts < ?4
         AND (passphrase_verifier_hash IS NULL OR passphrase_verifier_hash = ?3)
       RETURNING *`,
    )
    .bind(id, now, verifierHash, maxFailed)
    .first<RawRow>();
  return r ? fromRaw(r) : undefined;
}

/** One more wrong passphrase, counted only while the link is not locked yet; the new count, or null. */
export async function countFailure(db: Db, id: string, maxFailed: number): Promise<number | null> {
  const r = await rawD1(db)
    .prepare(
      `UPDATE secure_links SET failed_attempts = failed_attempts + 1
       WHERE id = ?1 AND passphrase_verifier_hash IS NOT NULL AND failed_attempts < ?2 RETURNING failed_attempts`,
    )
    .bind(id, maxFailed)
    .first<{ failed_attempts: number }>();
  return r ? r.failed_attempts : null;
}

export async function revoke(db: Db, ownerId: string, id: string, at: string): Promise<void> {
  await db
    .update(secureLinks)
    .set({ revokedAt: at })
    .where(and(eq(secureLinks.id, id), eq(secureLinks.ownerId, ownerId), isNull(secureLinks.revokedAt)))
    .run();
}

export async function markPurged(db: Db, ids: string[], at: string): Promise<void> {
  if (ids.length) await db.update(secureLinks).set({ contentPurgedAt: at }).where(inArray(secureLinks.id, ids)).run();
}

/**
 * Links whose content may go: revoked, locked, or ended (expired or used up) longer than `grace`
 * ago, so a delivery counted just before the end still finds its bytes while it streams them.
 */
export async function purgeable(db: Db, graceBefore: string, maxFailed: number, limit: number): Promise<{ id: string; r2Key: string }[]> {
  const r = await rawD1(db)
    .prepare(
      `SELECT id, r2_key AS r2Key FROM secure_links WHERE content_purged_at IS NULL AND (
         revoked_at IS NOT NULL OR failed_attempts >= ?2 OR expires_at < ?1
         OR (views_used >= max_views AND last_opened_at < ?1)) LIMIT ?3`,
    )
    .bind(graceBefore, maxFailed, limit)
    .all<{ id: string; r2Key: string }>();
  return r.results;
}

/** Rows (content long gone) of links that expired before `before`: they leave the owner's list. */
export async function deleteExpiredRows(db: Db, before: string, limit: number): Promise<number> {
  const ids = db.select({ id: secureLinks.id }).from(secureLinks).where(and(lt(secureLinks.expiresAt, before), isNotNull(secureLinks.contentPurgedAt))).limit(limit);
  const r = await db.delete(secureLinks).where(inArray(secureLinks.id, ids)).run();
  return r.meta.changes ?? 0;
}

/** Directory: written before the row, so every link can be found from its id. */
export async function point(directory: Db, row: Pick<SecureLinkRow, "id" | "ownerId" | "expiresAt">): Promise<void> {
  await directory.insert(secureLinkOwners).values({ linkId: row.id, ownerId: row.ownerId, expiresAt: row.expiresAt });
}

export async function unpoint(directory: Db, id: string): Promise<void> {
  await directory.delete(secureLinkOwners).where(eq(secureLinkOwners.linkId, id));
}

export async function ownerOf(directory: Db, id: string): Promise<string | undefined> {
  return (await directory.select({ ownerId: secureLinkOwners.ownerId }).from(secureLinkOwners).where(eq(secureLinkOwners.linkId, id)).get())?.ownerId;
}

export async function deleteExpiredPointers(directory: Db, before: string, limit: number): Promise<number> {
  const ids = directory.select({ id: secureLinkOwners.linkId }).from(secureLinkOwners).where(lt(secureLinkOwners.expiresAt, before)).limit(limit);
  const r = await directory.delete(secureLinkOwners).where(inArray(secureLinkOwners.linkId, ids)).run();
  return r.meta.changes ?? 0;
}
