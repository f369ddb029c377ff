import { and, desc, eq, isNull, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import {
  vaultTokenReads,
  vaultTokens,
  type VaultTokenRevoked,
  type VaultTokenRow,
} from "../../db/schema";
import type { AuthUser } from "../../kernel/context";
import { randomId, sha256Hex, timingSafeEqualStr } from "../../lib/crypto";
import { AppError, ErrorCode, conflict, notFound } from "../../lib/errors";
import { liveEntries } from "../sync";
import { memberOf, need, staleKeyVersion } from "./access";
import type { VaultCtx } from "./context";
import * as repo from "./repo";
import type { CreateTokenInput } from "./token-schema";

/** The most live tokens one person may hold; revoked and expired ones do not count. */
export const MAX_TOKENS_PER_USER = 50;

const refused = (message: string) => new AppError(ErrorCode.UNAUTHORIZED, message);

function stateOf(t: VaultTokenRow, now: string) {
  if (t.revokedAt) return "revoked" as const;
  return t.expiresAt <= now ? ("expired" as const) : ("active" as const);
}

export function toToken(t: VaultTokenRow, now = new Date().toISOString()) {
  return {
    id: t.id,
    vault_id: t.vaultId,
    name: t.name,
    key_version: t.keyVersion,
    state: stateOf(t, now),
    expires_at: t.expiresAt,
    created_at: t.createdAt,
    last_used_at: t.lastUsedAt,
    revoked_at: t.revokedAt,
    revoked_reason: t.revokedReason,
  };
}

function revoke(
  directory: Db,
  where: ReturnType<typeof and>,
  reason: VaultTokenRevoked,
  at: string,
) {
  return directory
    .update(vaultTokens)
    .set({ revokedAt: at, revokedReason: reason })
    .where(and(where, isNull(vaultTokens.revokedAt)));
}

/**
 * A key rotation's commit revokes every token of the vault: each holds a copy of the old key, which
 * opens none of the re-sealed entries, and the rotating client cannot rewrap it (it never had the
 * token's secret). The person sees them revoked with the reason `key_rotated` and makes new ones.
 */
export function revokeForRotation(directory: Db, vaultId: string, version: number, at: string) {
  return revoke(
    directory,
    and(eq(vaultTokens.vaultId, vaultId), lt(vaultTokens.keyVersion, version)),
    "key_rotated",
    at,
  );
}

/**
 * Read-only tokens for machines and agents (docs/cli.md, "Tokens for machines and agents"). The
 * person's routes are scoped to the caller as owner; the token's own read finds the row by id and
 * accepts it only for the authenticator whose hash it holds, unexpired, unrevoked, its maker still
 * a member, its key copy of the vault's current version. Every accepted read is logged.
 */
export class VaultTokenService {
  constructor(private readonly ctx: VaultCtx) {}

  private get dir() {
    return this.ctx.directory;
  }

  async create(user: AuthUser, vaultId: string, input: CreateTokenInput) {
    const m = await memberOf(this.dir, vaultId, user.id);
    need(m, "read");
    const vault = await repo.findVault(this.dir, vaultId);
    if (!vault) throw notFound("Vault");
    if (input.key_version !== vault.keyVersion) throw staleKeyVersion(vault.keyVersion);
    const now = new Date().toISOString();
    const live = await this.dir
      .select({ id: vaultTokens.id, expiresAt: vaultTokens.expiresAt })
      .from(vaultTokens)
      .where(and(eq(vaultTokens.ownerId, user.id), isNull(vaultTokens.revokedAt)));
    if (live.filter((t) => t.expiresAt > now).length >= MAX_TOKENS_PER_USER)
      throw new AppError(ErrorCode.UNPROCESSABLE, "Token limit reached", {
        extra: { max: MAX_TOKENS_PER_USER },
      });
    const row: VaultTokenRow = {
      id: input.token_id,
      vaultId,
      ownerId: user.id,
      name: input.name,
      authHash: input.auth_hash,
      keyVersion: input.key_version,
      wrappedKey: input.wrapped_key,
      expiresAt: new Date(input.expires_at).toISOString(),
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
      revokedReason: null,
    };
    const made = await this.dir.insert(vaultTokens).values(row).onConflictDoNothing().returning();
    if (made.length === 0) throw conflict("A token with this id exists: make a new one");
    await repo.activityInsert(this.ctx.home(vaultId), {
      vaultId,
      actorId: user.id,
      action: "token.created",
      targetId: row.id,
      at: now,
    });
    return { token: toToken(row, now) };
  }

  async list(user: AuthUser) {
    const rows = await this.dir
      .select()
      .from(vaultTokens)
      .where(eq(vaultTokens.ownerId, user.id))
      .orderBy(desc(vaultTokens.createdAt), vaultTokens.id);
    const now = new Date().toISOString();
    return { tokens: rows.map((r) => toToken(r, now)) };
  }

  private async own(user: AuthUser, tokenId: string) {
    const row = await this.dir
      .select()
      .from(vaultTokens)
      .where(and(eq(vaultTokens.id, tokenId), eq(vaultTokens.ownerId, user.id)))
      .get();
    if (!row) throw notFound("Token");
    return row;
  }

  /** Revoked at once: the token's next read is refused. Revoking a revoked token changes nothing. */
  async revoke(user: AuthUser, tokenId: string) {
    const row = await this.own(user, tokenId);
    if (row.revokedAt) return { token: toToken(row) };
    const at = new Date().toISOString();
    await revoke(
      this.dir,
      and(eq(vaultTokens.id, tokenId), eq(vaultTokens.ownerId, user.id)),
      "owner",
      at,
    );
    await repo.activityInsert(this.ctx.home(row.vaultId), {
      vaultId: row.vaultId,
      actorId: user.id,
      action: "token.revoked",
      targetId: row.id,
      at,
    });
    return { token: toToken({ ...row, revokedAt: at, revokedReason: "owner" }, at) };
  }

  async reads(user: AuthUser, tokenId: string | undefined, limit: number) {
    const rows = await this.dir
      .select()
      .from(vaultTokenReads)
      .where(
        tokenId
          ? and(eq(vaultTokenReads.ownerId, user.id), eq(vaultTokenReads.tokenId, tokenId))
          : eq(vaultTokenReads.ownerId, user.id),
      )
      .orderBy(desc(vaultTokenReads.createdAt), desc(vaultTokenReads.id))
      .limit(limit);
    return {
      reads: rows.map((r) => ({
        id: r.id,
        token_id: r.tokenId,
        token_name: r.tokenName,
        vault_id: r.vaultId,
        reason: r.reason,
        entries: r.entries,
        created_at: r.createdAt,
      })),
    };
  }

  /**
   * The token's read: refused with 401 for an unknown id or a wrong authenticator (told apart by
   * nothing), then for a revoked or expired token; 403 once its maker left the vault (the token is
   * revoked then) or the vault's key moved past its copy. Nothing is logged for a refused read.
   */
  async read(tokenId: string, authenticator: string, reason: string | null) {
    const row = await this.dir.select().from(vaultTokens).where(eq(vaultTokens.id, tokenId)).get();
    const presented = await sha256Hex(authenticator);
    if (!row || !timingSafeEqualStr(presented, row.authHash)) throw refused("Invalid token");
    const now = new Date().toISOString();
    if (row.revokedAt) throw refused("This token is revoked");
    if (row.expiresAt <= now) throw refused("This token has expired");
    const member = await repo.findMember(this.dir, row.vaultId, row.ownerId);
    if (!member) {
      await revoke(this.dir, eq(vaultTokens.id, row.id), "member_left", now);
      throw new AppError(
        ErrorCode.FORBIDDEN,
        "This token's maker is no longer a member of the vault",
      );
    }
    const vault = await repo.findVault(this.dir, row.vaultId);
    if (!vault) throw notFound("Vault");
    if (vault.keyVersion !== row.keyVersion)
      throw new AppError(ErrorCode.FORBIDDEN, "The vault's key changed since this token was made");
    const entries = await liveEntries(this.ctx.home(row.vaultId), row.vaultId);
    await this.dir.batch([
      this.dir.insert(vaultTokenReads).values({
        id: randomId(),
        tokenId: row.id,
        ownerId: row.ownerId,
        vaultId: row.vaultId,
        tokenName: row.name,
        reason,
        entries: entries.length,
        createdAt: now,
      }),
      this.dir.update(vaultTokens).set({ lastUsedAt: now }).where(eq(vaultTokens.id, row.id)),
    ]);
    return {
      token: { id: row.id, name: row.name, vault_id: row.vaultId, expires_at: row.expiresAt },
      vault: { id: vault.id, sealed_name: vault.sealedName, key_version: vault.keyVersion },
      wrapped_key: row.wrappedKey,
      entries,
    };
  }
}
