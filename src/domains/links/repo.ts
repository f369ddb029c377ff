import { and, desc, eq, inArray, isNotNull, isNull, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawD1, rowsChanged } from "../../db/d1";
import {
  secureLinkCodes,
  secureLinkOwners,
  secureLinks,
  type SecureLinkRow,
} from "../../db/schema";

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
  failed_codes: number;
  revoked_at: string | null;
  last_opened_at: string | null;
  content_purged_at: string | null;
  created_at: string;
  recipient_hashes: string | null;
  recipient_count: number;
  last_code_id: string | null;
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
  failedCodes: r.failed_codes,
  revokedAt: r.revoked_at,
  lastOpenedAt: r.last_opened_at,
  contentPurgedAt: r.content_purged_at,
  createdAt: r.created_at,
  recipientHashes: r.recipient_hashes ? JSON.parse(r.recipient_hashes) : null,
  recipientCount: r.recipient_count,
  lastCodeId: r.last_code_id,
});

/** A link whose ciphertext is still held counts against the owner's quotas until it is purged. */
const HELD = "revoked_at IS NULL AND content_purged_at IS NULL";

/**
 * Inserts the row only while the owner stays within both quotas: the checks and the insert are one
 * statement, so parallel creates cannot overshoot them. False when a quota refused it.
 */
export async function insertWithinQuota(
  db: Db,
  row: SecureLinkRow,
  maxOpen: number,
  quotaBytes: number,
): Promise<boolean> {
  const res = await rawD1(db)
    .prepare(
      `INSERT INTO secure_links (id, owner_id, kind, size, r2_key, encrypted_label, sender_email, max_views, views_used, expires_at,
         passphrase_salt, passphrase_verifier_hash, failed_attempts, created_at, recipient_hashes, recipient_count)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?10, ?11, 0, ?12, ?15, ?16
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
      row.recipientHashes ? JSON.stringify(row.recipientHashes) : null,
      row.recipientCount,
    )
    .run();
  return rowsChanged(res) > 0;
}

export async function usage(db: Db, ownerId: string): Promise<{ open: number; bytes: number }> {
  const r = await rawD1(db)
    .prepare(
      `SELECT count(*) AS open, coalesce(sum(size), 0) AS bytes FROM secure_links WHERE owner_id = ?1 AND ${HELD}`,
    )
    .bind(ownerId)
    .first<{ open: number; bytes: number }>();
  return { open: r?.open ?? 0, bytes: r?.bytes ?? 0 };
}

export async function listOwned(db: Db, ownerId: string, limit: number): Promise<SecureLinkRow[]> {
  return db
    .select()
    .from(secureLinks)
    .where(eq(secureLinks.ownerId, ownerId))
    .orderBy(desc(secureLinks.createdAt))
    .limit(limit)
    .all();
}

export async function findOwned(
  db: Db,
  ownerId: string,
  id: string,
): Promise<SecureLinkRow | undefined> {
  return db
    .select()
    .from(secureLinks)
    .where(and(eq(secureLinks.id, id), eq(secureLinks.ownerId, ownerId)))
    .get();
}

/** The opener names a link by its id alone: the id is the capability, resolved on its owner's shard. */
export async function findById(db: Db, id: string): Promise<SecureLinkRow | undefined> {
  return db.select().from(secureLinks).where(eq(secureLinks.id, id)).get();
}

/** A recipient's code as the open presents it: the attempt it was mailed for and its keyed hash. */
export type CodeProof = { challenge: string; hash: string };

/** The numbers past which a link or an attempt refuses: wrong passphrases, wrong codes, codes per attempt. */
export type Locks = { passphrases: number; codes: number; perAttempt: number };

/**
 * Counts one view and returns the row, in one conditional statement: only a link that is live, has
 * a view left, is not locked, whose passphrase (if any) matches and, when it is limited to named
 * addresses, whose code proof names a live unused challenge of this link asked for a listed address,
 * is counted. D1 runs statements one at a time, so N parallel opens of a link with N views left give
 * exactly N rows back. The challenge is consumed in the same batch (a transaction), only when this
 * statement counted under it, so one code delivers once however many opens race with it.
 */
export async function countView(
  db: Db,
  id: string,
  verifierHash: string | null,
  now: string,
  locks: Locks,
  proof: CodeProof | null,
): Promise<SecureLinkRow | undefined> {
  const d1 = rawD1(db);
  const [counted] = await d1.batch<RawRow>([
    d1
      .prepare(
        `UPDATE secure_links SET views_used = views_used + 1, last_opened_at = ?2, last_code_id = ?5
         WHERE id = ?1 AND ${HELD} AND views_used < max_views AND expires_at > ?2 AND failed_attempts < ?4 AND failed_codes < ?8
           AND (passphrase_verifier_hash IS NULL OR passphrase_verifier_hash = ?3)
           AND (recipient_hashes IS NULL OR EXISTS (SELECT 1 FROM secure_link_codes c WHERE c.id = ?5 AND c.link_id = ?1
             AND c.code_hash = ?6 AND c.consumed_at IS NULL AND c.expires_at > ?2 AND c.attempts < ?7
             AND c.address_hash IN (SELECT value FROM json_each(secure_links.recipient_hashes))))
         RETURNING *`,
      )
      .bind(
        id,
        now,
        verifierHash,
        locks.passphrases,
        proof?.challenge ?? null,
        proof?.hash ?? null,
        locks.perAttempt,
        locks.codes,
      ),
    d1
      .prepare(
        `UPDATE secure_link_codes SET consumed_at = ?2 WHERE id = ?3 AND link_id = ?1 AND consumed_at IS NULL
           AND EXISTS (SELECT 1 FROM secure_links WHERE id = ?1 AND last_code_id = ?3 AND last_opened_at = ?2)`,
      )
      .bind(id, now, proof?.challenge ?? null),
  ]);
  const r = counted?.results?.[0];
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
    .where(
      and(eq(secureLinks.id, id), eq(secureLinks.ownerId, ownerId), isNull(secureLinks.revokedAt)),
    )
    .run();
}

export async function markPurged(db: Db, ids: string[], at: string): Promise<void> {
  if (ids.length)
    await db
      .update(secureLinks)
      .set({ contentPurgedAt: at })
      .where(inArray(secureLinks.id, ids))
      .run();
}

/**
 * Links whose content may go: revoked, locked, or ended (expired or used up) longer than `grace`
 * ago, so a delivery counted just before the end still finds its bytes while it streams them.
 */
export async function purgeable(
  db: Db,
  graceBefore: string,
  locks: Pick<Locks, "passphrases" | "codes">,
  limit: number,
): Promise<{ id: string; r2Key: string }[]> {
  const r = await rawD1(db)
    .prepare(
      `SELECT id, r2_key AS r2Key FROM secure_links WHERE content_purged_at IS NULL AND (
         revoked_at IS NOT NULL OR failed_attempts >= ?2 OR failed_codes >= ?4 OR expires_at < ?1
         OR (views_used >= max_views AND last_opened_at < ?1)) LIMIT ?3`,
    )
    .bind(graceBefore, locks.passphrases, limit, locks.codes)
    .all<{ id: string; r2Key: string }>();
  return r.results;
}

/** Rows (content long gone) of links that expired before `before`: they leave the owner's list. */
export async function deleteExpiredRows(db: Db, before: string, limit: number): Promise<number> {
  const ids = db
    .select({ id: secureLinks.id })
    .from(secureLinks)
    .where(and(lt(secureLinks.expiresAt, before), isNotNull(secureLinks.contentPurgedAt)))
    .limit(limit);
  const r = await db.delete(secureLinks).where(inArray(secureLinks.id, ids)).run();
  return r.meta.changes ?? 0;
}

/** Directory: written before the row, so every link can be found from its id. */
export async function point(
  directory: Db,
  row: Pick<SecureLinkRow, "id" | "ownerId" | "expiresAt">,
): Promise<void> {
  await directory
    .insert(secureLinkOwners)
    .values({ linkId: row.id, ownerId: row.ownerId, expiresAt: row.expiresAt });
}

export async function unpoint(directory: Db, id: string): Promise<void> {
  await directory.delete(secureLinkOwners).where(eq(secureLinkOwners.linkId, id));
}

export async function ownerOf(directory: Db, id: string): Promise<string | undefined> {
  return (
    await directory
      .select({ ownerId: secureLinkOwners.ownerId })
      .from(secureLinkOwners)
      .where(eq(secureLinkOwners.linkId, id))
      .get()
  )?.ownerId;
}

export async function deleteExpiredPointers(
  directory: Db,
  before: string,
  limit: number,
): Promise<number> {
  const ids = directory
    .select({ id: secureLinkOwners.linkId })
    .from(secureLinkOwners)
    .where(lt(secureLinkOwners.expiresAt, before))
    .limit(limit);
  const r = await directory
    .delete(secureLinkOwners)
    .where(inArray(secureLinkOwners.linkId, ids))
    .run();
  return r.meta.changes ?? 0;
}

/** How many attempts a window may hold: for the whole link, and for one address on it. */
export type CodeCaps = { windowStart: string; perLink: number; perAddress: number };

/**
 * A new open attempt with its code, refused (false) once the link has had `perLink` attempts within
 * the window, or the address `perAddress`: the counts and the insert are one statement, so parallel
 * asks cannot overshoot them.
 */
export async function insertCode(
  db: Db,
  row: typeof secureLinkCodes.$inferInsert,
  caps: CodeCaps,
): Promise<boolean> {
  const res = await rawD1(db)
    .prepare(
      `INSERT INTO secure_link_codes (id, owner_id, link_id, code_hash, address_hash, attempts, expires_at, created_at)
       SELECT ?1, ?2, ?3, ?4, ?9, 0, ?5, ?6
       WHERE (SELECT count(*) FROM secure_link_codes WHERE link_id = ?3 AND created_at > ?7) < ?8
         AND (SELECT count(*) FROM secure_link_codes WHERE link_id = ?3 AND address_hash = ?9 AND created_at > ?7) < ?10`,
    )
    .bind(
      row.id,
      row.ownerId,
      row.linkId,
      row.codeHash,
      row.expiresAt,
      row.createdAt,
      caps.windowStart,
      caps.perLink,
      row.addressHash ?? null,
      caps.perAddress,
    )
    .run();
  return rowsChanged(res) > 0;
}

export async function findCode(db: Db, linkId: string, challenge: string) {
  return db
    .select()
    .from(secureLinkCodes)
    .where(and(eq(secureLinkCodes.id, challenge), eq(secureLinkCodes.linkId, linkId)))
    .get();
}

/**
 * One more wrong code, counted against its attempt and against the link, in one batch (a
 * transaction) and only while the attempt is open: the attempt's new count (null when it was no
 * longer open) and the link's (null when the link was locked already).
 */
export async function countCodeFailure(
  db: Db,
  linkId: string,
  challenge: string,
  locks: Pick<Locks, "codes" | "perAttempt">,
  now: string,
): Promise<{ attempt: number | null; link: number | null }> {
  const d1 = rawD1(db);
  const live = `SELECT 1 FROM secure_link_codes WHERE id = ?2 AND link_id = ?1 AND consumed_at IS NULL AND attempts < ?3 AND expires_at > ?4`;
  const [onLink, onAttempt] = await d1.batch<{ n: number }>([
    d1
      .prepare(
        `UPDATE secure_links SET failed_codes = failed_codes + 1 WHERE id = ?1 AND failed_codes < ?5 AND EXISTS (${live}) RETURNING failed_codes AS n`,
      )
      .bind(linkId, challenge, locks.perAttempt, now, locks.codes),
    d1
      .prepare(
        `UPDATE secure_link_codes SET attempts = attempts + 1 WHERE id = ?2 AND link_id = ?1 AND consumed_at IS NULL AND attempts < ?3 AND expires_at > ?4 RETURNING attempts AS n`,
      )
      .bind(linkId, challenge, locks.perAttempt, now),
  ]);
  return { link: onLink?.results?.[0]?.n ?? null, attempt: onAttempt?.results?.[0]?.n ?? null };
}

/** Codes are worth nothing after their ten minutes; the scheduled job drops them a day later. */
export async function deleteOldCodes(db: Db, before: string, limit: number): Promise<number> {
  const ids = db
    .select({ id: secureLinkCodes.id })
    .from(secureLinkCodes)
    .where(lt(secureLinkCodes.expiresAt, before))
    .limit(limit);
  const r = await db.delete(secureLinkCodes).where(inArray(secureLinkCodes.id, ids)).run();
  return r.meta.changes ?? 0;
}
