import { and, count, desc, eq, gt, lt, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowsChanged } from "../../db/d1";
import {
  vaultActivity,
  vaultInvitations,
  vaultKeyVersions,
  vaultMembers,
  vaults,
  type VaultInvitationRow,
  type VaultRole,
} from "../../db/schema";

/**
 * Directory reads and writes (vaults, members, invitations) and the home shard's own (key
 * versions, activity). Every query names the vault and, where it acts for someone, the member.
 */

export function findVault(directory: Db, vaultId: string) {
  return directory.select().from(vaults).where(eq(vaults.id, vaultId)).get();
}

export function findMember(directory: Db, vaultId: string, userId: string) {
  return directory
    .select()
    .from(vaultMembers)
    .where(and(eq(vaultMembers.vaultId, vaultId), eq(vaultMembers.userId, userId)))
    .get();
}

export function membersOf(directory: Db, vaultId: string) {
  return directory
    .select()
    .from(vaultMembers)
    .where(eq(vaultMembers.vaultId, vaultId))
    .orderBy(vaultMembers.joinedAt, vaultMembers.userId);
}

/** The caller's vaults with their membership and each vault's member count. */
export function vaultsOf(directory: Db, userId: string) {
  const n = directory
    .select({ vaultId: vaultMembers.vaultId, n: count().as("n") })
    .from(vaultMembers)
    .groupBy(vaultMembers.vaultId)
    .as("n");
  return directory
    .select({ vault: vaults, member: vaultMembers, members: n.n })
    .from(vaultMembers)
    .innerJoin(vaults, eq(vaults.id, vaultMembers.vaultId))
    .innerJoin(n, eq(n.vaultId, vaults.id))
    .where(eq(vaultMembers.userId, userId))
    .orderBy(vaults.createdAt, vaults.id);
}

export async function vaultCountOf(directory: Db, userId: string): Promise<number> {
  const row = await directory
    .select({ n: count() })
    .from(vaultMembers)
    .where(eq(vaultMembers.userId, userId))
    .get();
  return row?.n ?? 0;
}

/** Members plus open invitations: the seats a vault has given out. */
export async function seatsOf(directory: Db, vaultId: string, now: string): Promise<number> {
  const [m, i] = await directory.batch([
    directory.select({ n: count() }).from(vaultMembers).where(eq(vaultMembers.vaultId, vaultId)),
    directory
      .select({ n: count() })
      .from(vaultInvitations)
      .where(and(eq(vaultInvitations.vaultId, vaultId), gt(vaultInvitations.expiresAt, now))),
  ]);
  return (m[0]?.n ?? 0) + (i[0]?.n ?? 0);
}

export function openInvitations(directory: Db, vaultId: string, now: string) {
  return directory
    .select()
    .from(vaultInvitations)
    .where(and(eq(vaultInvitations.vaultId, vaultId), gt(vaultInvitations.expiresAt, now)))
    .orderBy(vaultInvitations.createdAt);
}

export function invitationsFor(directory: Db, email: string, now: string) {
  return directory
    .select()
    .from(vaultInvitations)
    .where(and(eq(vaultInvitations.email, email), gt(vaultInvitations.expiresAt, now)))
    .orderBy(vaultInvitations.createdAt);
}

export function findInvitation(directory: Db, id: string) {
  return directory.select().from(vaultInvitations).where(eq(vaultInvitations.id, id)).get();
}

/** How many owners a vault has: the last one may not leave, be removed or be demoted. */
export async function ownerCount(directory: Db, vaultId: string): Promise<number> {
  const row = await directory
    .select({ n: count() })
    .from(vaultMembers)
    .where(and(eq(vaultMembers.vaultId, vaultId), eq(vaultMembers.role, "owner")))
    .get();
  return row?.n ?? 0;
}

/**
 * Removes a member unless that would leave the vault without an owner: the guard is in the
 * statement, so two owners leaving at once cannot both go.
 */
export async function removeMember(directory: Db, vaultId: string, userId: string) {
  const res = await directory.run(
    sql`DELETE FROM vault_members WHERE vault_id = ${vaultId} AND user_id = ${userId}
      AND (role <> 'owner' OR (SELECT count(*) FROM vault_members WHERE vault_id = ${vaultId} AND role = 'owner') > 1)`,
  );
  return rowsChanged(res) > 0;
}

/** Changes a role, with the same last-owner guard as a removal. */
export async function setRole(
  directory: Db,
  vaultId: string,
  userId: string,
  role: VaultRole,
  at: string,
) {
  const res = await directory.run(
    sql`UPDATE vault_members SET role = ${role}, updated_at = ${at}
      WHERE vault_id = ${vaultId} AND user_id = ${userId}
      AND (role <> 'owner' OR ${role} = 'owner' OR (SELECT count(*) FROM vault_members WHERE vault_id = ${vaultId} AND role = 'owner') > 1)`,
  );
  return rowsChanged(res) > 0;
}

/** A member's copy of the current key: only once they accepted (they have a row). */
export async function setWrap(
  directory: Db,
  vaultId: string,
  userId: string,
  keyVersion: number,
  wrappedKey: string,
  at: string,
) {
  const res = await directory
    .update(vaultMembers)
    .set({ keyVersion, wrappedKey, updatedAt: at })
    .where(and(eq(vaultMembers.vaultId, vaultId), eq(vaultMembers.userId, userId)))
    .run();
  return rowsChanged(res) > 0;
}

/** Copies for a rotation's version, kept beside the current one until the commit promotes them. */
export async function setNextWraps(
  directory: Db,
  vaultId: string,
  version: number,
  wraps: { user_id: string; wrapped_key: string }[],
) {
  const [first, ...rest] = wraps.map((w) =>
    directory
      .update(vaultMembers)
      .set({ nextKeyVersion: version, nextWrappedKey: w.wrapped_key })
      .where(and(eq(vaultMembers.vaultId, vaultId), eq(vaultMembers.userId, w.user_id))),
  );
  const results = await directory.batch([first!, ...rest]);
  return wraps.filter((_, i) => rowsChanged(results[i]!) === 0).map((w) => w.user_id);
}

/**
 * After the home shard committed `version`: the directory's record of the key follows, and each
 * member's copy for it becomes their current one (members without one wait for a wrap). Safe to
 * run again, so an interrupted commit is finished by the next call.
 */
export async function promoteVersion(directory: Db, vaultId: string, version: number, at: string) {
  await directory.batch([
    directory
      .update(vaults)
      .set({ keyVersion: version, updatedAt: at })
      .where(and(eq(vaults.id, vaultId), lt(vaults.keyVersion, version))),
    directory
      .update(vaultMembers)
      .set({
        keyVersion: sql`${vaultMembers.nextKeyVersion}`,
        wrappedKey: sql`${vaultMembers.nextWrappedKey}`,
        nextKeyVersion: null,
        nextWrappedKey: null,
      })
      .where(and(eq(vaultMembers.vaultId, vaultId), eq(vaultMembers.nextKeyVersion, version))),
  ]);
}

export async function deleteVaultRows(directory: Db, vaultId: string) {
  await directory.batch([
    directory.delete(vaultInvitations).where(eq(vaultInvitations.vaultId, vaultId)),
    directory.delete(vaultMembers).where(eq(vaultMembers.vaultId, vaultId)),
    directory.delete(vaults).where(eq(vaults.id, vaultId)),
  ]);
}

/** Home shard: the key versions, newest first. */
export function keyVersions(home: Db, vaultId: string) {
  return home
    .select()
    .from(vaultKeyVersions)
    .where(eq(vaultKeyVersions.vaultId, vaultId))
    .orderBy(desc(vaultKeyVersions.version));
}

/** Opens a rotation to `from + 1` only while `from` is current and no other rotation is open. */
export async function beginVersion(
  home: Db,
  vaultId: string,
  from: number,
  by: string,
  at: string,
) {
  const res = await home.run(
    sql`INSERT INTO vault_key_versions (vault_id, version, state, started_by, created_at)
      SELECT ${vaultId}, ${from + 1}, 'rotating', ${by}, ${at}
      WHERE EXISTS (SELECT 1 FROM vault_key_versions WHERE vault_id = ${vaultId} AND version = ${from} AND state = 'current')
        AND NOT EXISTS (SELECT 1 FROM vault_key_versions WHERE vault_id = ${vaultId} AND state = 'rotating')`,
  );
  return rowsChanged(res) > 0;
}

export function activityInsert(
  home: Db,
  row: { vaultId: string; actorId: string; action: string; targetId?: string | null; at: string },
) {
  return home.insert(vaultActivity).values({
    id: crypto.randomUUID(),
    vaultId: row.vaultId,
    actorId: row.actorId,
    action: row.action,
    targetId: row.targetId ?? null,
    createdAt: row.at,
  });
}

/** Newest first; the cursor is the last id of the page before (created_at never changes). */
export async function activityPage(
  home: Db,
  vaultId: string,
  cursor: string | undefined,
  take: number,
) {
  const t = vaultActivity;
  const after = cursor
    ? await home
        .select({ at: t.createdAt })
        .from(t)
        .where(and(eq(t.vaultId, vaultId), eq(t.id, cursor)))
        .get()
    : undefined;
  if (cursor && !after) return null;
  return home
    .select()
    .from(t)
    .where(
      and(
        eq(t.vaultId, vaultId),
        after
          ? or(lt(t.createdAt, after.at), and(eq(t.createdAt, after.at), lt(t.id, cursor!)))
          : undefined,
      ),
    )
    .orderBy(desc(t.createdAt), desc(t.id))
    .limit(take);
}

export const ids = (rows: { userId: string }[]) => rows.map((r) => r.userId);

/** A new invitation, replacing only an expired one to the same address; false when one is open. */
export async function insertInvitation(directory: Db, row: VaultInvitationRow) {
  const res = await directory.run(
    sql`INSERT INTO vault_invitations (id, vault_id, email, role, invited_by, inviter_email, expires_at, created_at)
      VALUES (${row.id}, ${row.vaultId}, ${row.email}, ${row.role}, ${row.invitedBy}, ${row.inviterEmail}, ${row.expiresAt}, ${row.createdAt})
      ON CONFLICT (vault_id, email) DO UPDATE SET id = excluded.id, role = excluded.role, invited_by = excluded.invited_by,
        inviter_email = excluded.inviter_email, expires_at = excluded.expires_at, created_at = excluded.created_at
      WHERE vault_invitations.expires_at <= excluded.created_at`,
  );
  return rowsChanged(res) > 0;
}

export const deleteInvitation = (directory: Db, id: string) =>
  directory.delete(vaultInvitations).where(eq(vaultInvitations.id, id));

export function renameVault(directory: Db, vaultId: string, sealedName: string, at: string) {
  return directory.update(vaults).set({ sealedName, updatedAt: at }).where(eq(vaults.id, vaultId));
}
