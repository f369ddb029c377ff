import type { VaultInvitationRow, VaultMemberRow, VaultRole, VaultRow } from "../../db/schema";
import { vaultKeyVersions, vaultMembers, vaults } from "../../db/schema";
import type { AuthUser } from "../../kernel/context";
import { randomId } from "../../lib/crypto";
import { conflict, forbidden, notFound } from "../../lib/errors";
import { badCursor } from "../../db/keyset";
import { currentKeyVersion, liveVaultCount, vaultDeleteAll } from "../passwords";
import { lastOwner, limitReached, memberOf, need, needToGrant, staleKeyVersion } from "./access";
import { tellMembers, type VaultCtx } from "./context";
import * as repo from "./repo";

const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const lower = (e: string | undefined) => (e ? e.trim().toLowerCase() : null);

type MemberState = "pending" | "accepted" | "wrapped";
const stateOf = (m: VaultMemberRow, current: number): MemberState =>
  m.keyVersion === current && m.wrappedKey ? "wrapped" : "accepted";

export function toVault(v: VaultRow, m: VaultMemberRow, members: number) {
  return {
    id: v.id,
    sealed_name: v.sealedName,
    key_version: v.keyVersion,
    role: m.role,
    member_state: stateOf(m, v.keyVersion),
    members,
    created_by: v.createdBy,
    created_at: v.createdAt,
    updated_at: v.updatedAt,
  };
}

export function toInvitation(i: VaultInvitationRow) {
  return {
    id: i.id,
    vault_id: i.vaultId,
    email: i.email,
    role: i.role,
    invited_by: i.invitedBy,
    inviter_email: i.inviterEmail,
    expires_at: i.expiresAt,
    created_at: i.createdAt,
  };
}

const toMember = (m: VaultMemberRow, current: number) => ({
  user_id: m.userId,
  email: m.email,
  role: m.role,
  state: stateOf(m, current),
  key_version: m.keyVersion,
  invitation_id: null,
});

/** Membership, invitations and keys of shared vaults; entries and rotation are in ./entries.ts and ./rotation.ts. */
export class VaultService {
  constructor(private readonly ctx: VaultCtx) {}

  private get dir() {
    return this.ctx.directory;
  }

  /** Logs to the vault's activity after the change it reports (never a change that was not made). */
  private async log(vaultId: string, actorId: string, action: string, targetId?: string | null) {
    await repo.activityInsert(this.ctx.home(vaultId), {
      vaultId,
      actorId,
      action,
      targetId,
      at: new Date().toISOString(),
    });
  }

  private async vaultOf(vaultId: string) {
    const v = await repo.findVault(this.dir, vaultId);
    if (!v) throw notFound("Vault");
    return v;
  }

  async list(user: AuthUser) {
    const rows = await repo.vaultsOf(this.dir, user.id);
    return { vaults: rows.map((r) => toVault(r.vault, r.member, r.members)) };
  }

  async get(user: AuthUser, vaultId: string) {
    const m = await memberOf(this.dir, vaultId, user.id);
    const v = await this.vaultOf(vaultId);
    const members = await repo.membersOf(this.dir, vaultId);
    return { vault: toVault(v, m, members.length) };
  }

  /**
   * A new vault with the creator as its owner, holding their own copy of key version 1. The home
   * shard records the version first: a crash after it leaves an unreferenced row, never a vault
   * whose entries no fence guards.
   */
  async create(user: AuthUser, body: { sealed_name: string; wrapped_key: string }) {
    if ((await repo.vaultCountOf(this.dir, user.id)) >= this.ctx.limits.vaultsPerUser)
      throw limitReached("Vault", this.ctx.limits.vaultsPerUser);
    const id = `vlt_${randomId()}`;
    const at = new Date().toISOString();
    const home = this.ctx.home(id);
    await home.insert(vaultKeyVersions).values({
      vaultId: id,
      version: 1,
      state: "current",
      startedBy: user.id,
      createdAt: at,
      committedAt: at,
    });
    const v: VaultRow = {
      id,
      sealedName: body.sealed_name,
      keyVersion: 1,
      createdBy: user.id,
      createdAt: at,
      updatedAt: at,
    };
    const m: VaultMemberRow = {
      vaultId: id,
      userId: user.id,
      email: lower(user.email),
      role: "owner",
      keyVersion: 1,
      wrappedKey: body.wrapped_key,
      nextKeyVersion: null,
      nextWrappedKey: null,
      invitedBy: null,
      joinedAt: at,
      updatedAt: at,
    };
    await this.dir.batch([
      this.dir.insert(vaults).values(v),
      this.dir.insert(vaultMembers).values(m),
    ]);
    await this.log(id, user.id, "vault.created");
    await tellMembers(this.ctx, id);
    return { vault: toVault(v, m, 1) };
  }

  async rename(user: AuthUser, vaultId: string, sealedName: string) {
    const m = await memberOf(this.dir, vaultId, user.id);
    need(m, "manage");
    const at = new Date().toISOString();
    await repo.renameVault(this.dir, vaultId, sealedName, at);
    await this.log(vaultId, user.id, "vault.renamed");
    await tellMembers(this.ctx, vaultId);
    return this.get(user, vaultId);
  }

  /**
   * Owner only. The entries go with the vault only when the caller says so; otherwise a vault that
   * still holds entries is refused, so the client moves them to the personal vault first.
   */
  async remove(user: AuthUser, vaultId: string, entries: "delete" | "refuse") {
    const m = await memberOf(this.dir, vaultId, user.id);
    need(m, "own");
    const home = this.ctx.home(vaultId);
    if (entries === "refuse" && (await liveVaultCount(home, vaultId)) > 0)
      throw conflict("The vault still holds entries: move them or delete them with it");
    const members = await repo.membersOf(this.dir, vaultId);
    const at = new Date().toISOString();
    await vaultDeleteAll(home, this.ctx.env, vaultId, at);
    await repo.deleteVaultRows(this.dir, vaultId);
    await this.log(vaultId, user.id, "vault.deleted");
    await tellMembers(this.ctx, vaultId, repo.ids(members));
  }

  /** Owner only: the new owner must be a member already; the old one stays on as manager. */
  async transfer(user: AuthUser, vaultId: string, to: string) {
    const m = await memberOf(this.dir, vaultId, user.id);
    need(m, "own");
    if (to === user.id) throw conflict("You already own this vault");
    const target = await repo.findMember(this.dir, vaultId, to);
    if (!target) throw notFound("Member");
    const at = new Date().toISOString();
    await repo.setRole(this.dir, vaultId, to, "owner", at);
    await repo.setRole(this.dir, vaultId, user.id, "manager", at);
    await this.log(vaultId, user.id, "vault.ownership_transferred", to);
    await tellMembers(this.ctx, vaultId);
    return this.get(user, vaultId);
  }

  async invite(user: AuthUser, vaultId: string, body: { email: string; role: VaultRole }) {
    const m = await memberOf(this.dir, vaultId, user.id);
    needToGrant(m, body.role);
    const email = lower(body.email)!;
    if (email === lower(user.email)) throw conflict("You are already in this vault");
    const at = new Date();
    if (
      (await repo.seatsOf(this.dir, vaultId, at.toISOString())) >= this.ctx.limits.membersPerVault
    )
      throw limitReached("Member", this.ctx.limits.membersPerVault);
    const members = await repo.membersOf(this.dir, vaultId);
    if (members.some((x) => x.email === email)) throw conflict("Already a member");
    const row: VaultInvitationRow = {
      id: randomId(),
      vaultId,
      email,
      role: body.role,
      invitedBy: user.id,
      inviterEmail: lower(user.email),
      expiresAt: new Date(at.getTime() + INVITE_TTL_MS).toISOString(),
      createdAt: at.toISOString(),
    };
    // An expired invitation to the same address is replaced; an open one is a conflict.
    if (!(await repo.insertInvitation(this.dir, row)))
      throw conflict("This address already has an open invitation");
    await this.log(vaultId, user.id, "member.invited");
    return { invitation: toInvitation(row) };
  }

  /** Open invitations to the caller's verified address (found in the app, as emergency invitations are). */
  async invitations(user: AuthUser) {
    const email = lower(user.email);
    if (!email) return { invitations: [] };
    const rows = await repo.invitationsFor(this.dir, email, new Date().toISOString());
    return { invitations: rows.map(toInvitation) };
  }

  private async invitationFor(user: AuthUser, id: string) {
    const inv = await repo.findInvitation(this.dir, id);
    const email = lower(user.email);
    if (!inv || !email || inv.email !== email || inv.expiresAt <= new Date().toISOString())
      throw notFound("Invitation");
    return inv;
  }

  /** The invitee joins without a key: an owner or manager device wraps it for their pinned key. */
  async accept(user: AuthUser, id: string) {
    const inv = await this.invitationFor(user, id);
    if ((await repo.vaultCountOf(this.dir, user.id)) >= this.ctx.limits.vaultsPerUser)
      throw limitReached("Vault", this.ctx.limits.vaultsPerUser);
    const at = new Date().toISOString();
    await this.dir.batch([
      this.dir
        .insert(vaultMembers)
        .values({
          vaultId: inv.vaultId,
          userId: user.id,
          email: inv.email,
          role: inv.role,
          invitedBy: inv.invitedBy,
          joinedAt: at,
          updatedAt: at,
        })
        .onConflictDoNothing(),
      repo.deleteInvitation(this.dir, inv.id),
    ]);
    await this.log(inv.vaultId, user.id, "member.joined", user.id);
    await tellMembers(this.ctx, inv.vaultId);
    return this.get(user, inv.vaultId);
  }

  async decline(user: AuthUser, id: string) {
    const inv = await this.invitationFor(user, id);
    await repo.deleteInvitation(this.dir, inv.id);
    await this.log(inv.vaultId, user.id, "member.declined");
  }

  async cancelInvitation(user: AuthUser, vaultId: string, id: string) {
    need(await memberOf(this.dir, vaultId, user.id), "manage");
    const inv = await repo.findInvitation(this.dir, id);
    if (!inv || inv.vaultId !== vaultId) throw notFound("Invitation");
    await repo.deleteInvitation(this.dir, id);
    await this.log(vaultId, user.id, "member.invitation_cancelled");
  }

  /** Every member can see who is in, who accepted and waits for a key, and who is invited. */
  async members(user: AuthUser, vaultId: string) {
    await memberOf(this.dir, vaultId, user.id);
    const v = await this.vaultOf(vaultId);
    const now = new Date().toISOString();
    const [members, invited] = await Promise.all([
      repo.membersOf(this.dir, vaultId),
      repo.openInvitations(this.dir, vaultId, now),
    ]);
    return {
      key_version: v.keyVersion,
      members: [
        ...members.map((x) => toMember(x, v.keyVersion)),
        ...invited.map((i) => ({
          user_id: null,
          email: i.email,
          role: i.role,
          state: "pending" as const,
          key_version: null,
          invitation_id: i.id,
        })),
      ],
    };
  }

  /**
   * An owner's or manager's device posts a member's copy of the current key. The server cannot
   * check what it wraps (docs/crypto.md); it checks who may post it and that it is for the version
   * every entry is under now, read from the home shard's fence.
   */
  async wrap(
    user: AuthUser,
    vaultId: string,
    memberId: string,
    body: { key_version: number; wrapped_key: string },
  ) {
    need(await memberOf(this.dir, vaultId, user.id), "manage");
    const target = await repo.findMember(this.dir, vaultId, memberId);
    if (!target) throw notFound("Member");
    const current = await currentKeyVersion(this.ctx.home(vaultId), vaultId);
    if (current !== body.key_version) throw staleKeyVersion(current);
    const at = new Date().toISOString();
    await repo.setWrap(this.dir, vaultId, memberId, body.key_version, body.wrapped_key, at);
    await this.log(vaultId, user.id, "member.key_wrapped", memberId);
    await tellMembers(this.ctx, vaultId);
    return {
      member: toMember(
        { ...target, keyVersion: body.key_version, wrappedKey: body.wrapped_key },
        current,
      ),
    };
  }

  /** The caller's own copy of the current key. */
  async key(user: AuthUser, vaultId: string) {
    const m = await memberOf(this.dir, vaultId, user.id);
    const v = await this.vaultOf(vaultId);
    if (m.keyVersion !== v.keyVersion || !m.wrappedKey)
      throw notFound("Your copy of the vault key (not wrapped yet)");
    return { key_version: m.keyVersion, wrapped_key: m.wrappedKey };
  }

  async setRole(user: AuthUser, vaultId: string, memberId: string, role: VaultRole) {
    const m = await memberOf(this.dir, vaultId, user.id);
    needToGrant(m, role);
    const target = await repo.findMember(this.dir, vaultId, memberId);
    if (!target) throw notFound("Member");
    if (target.role === "owner" && m.role !== "owner")
      throw forbidden("Only an owner may change an owner");
    if (!(await repo.setRole(this.dir, vaultId, memberId, role, new Date().toISOString())))
      throw lastOwner();
    await this.log(vaultId, user.id, "member.role_changed", memberId);
    await tellMembers(this.ctx, vaultId);
    const v = await this.vaultOf(vaultId);
    return { member: toMember({ ...target, role }, v.keyVersion) };
  }

  /**
   * Removes a member, or the caller leaves. From the next request on the removed member is refused
   * everything (memberOf finds no row); the remover's client then rotates the key (./rotation.ts).
   */
  async removeMember(user: AuthUser, vaultId: string, memberId: string) {
    const m = await memberOf(this.dir, vaultId, user.id);
    const leaving = memberId === user.id;
    if (!leaving) {
      need(m, "manage");
      const target = await repo.findMember(this.dir, vaultId, memberId);
      if (!target) throw notFound("Member");
      if (target.role === "owner" && m.role !== "owner")
        throw forbidden("Only an owner may remove an owner");
    }
    if (!(await repo.removeMember(this.dir, vaultId, memberId))) throw lastOwner();
    await this.log(vaultId, user.id, leaving ? "member.left" : "member.removed", memberId);
    await tellMembers(this.ctx, vaultId, [memberId]);
  }

  async activity(user: AuthUser, vaultId: string, page: { limit: number; cursor?: string }) {
    need(await memberOf(this.dir, vaultId, user.id), "manage");
    const rows = await repo.activityPage(
      this.ctx.home(vaultId),
      vaultId,
      page.cursor,
      page.limit + 1,
    );
    if (!rows) throw badCursor();
    const items = rows.slice(0, page.limit);
    return {
      activity: items.map((r) => ({
        id: r.id,
        actor_id: r.actorId,
        action: r.action,
        target_id: r.targetId,
        created_at: r.createdAt,
      })),
      next_cursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null,
    };
  }
}
