import { sql } from "drizzle-orm";
import type { AuthUser } from "../../kernel/context";
import { writeMinted } from "../../db/entry-ids";
import { randomId } from "../../lib/crypto";
import { AppError, ErrorCode, notFound } from "../../lib/errors";
import {
  currentKeyVersion,
  entryPatch,
  findLive,
  findVaultEntry,
  newEntryRow,
  PasswordService,
  vaultDelete,
  vaultInsert,
  vaultUpdate,
} from "../passwords";
import { SyncService } from "../sync";
import { memberOf, need, staleKeyVersion } from "./access";
import { tellMembers, type VaultCtx } from "./context";
import type { CreateEntryInput, MoveInput, UpdateEntryInput } from "./schema";

const activity = (vaultId: string, actorId: string, action: string, targetId: string, at: string) =>
  sql`INSERT INTO vault_activity (id, vault_id, actor_id, action, target_id, created_at)
    VALUES (${randomId()}, ${vaultId}, ${actorId}, ${action}, ${targetId}, ${at})`;

/**
 * Entries of a shared vault, checked by role on every call; a write of ciphertext names the key
 * version it was made under and is refused (409, the vault's current version in the body) once a
 * rotation has moved past it. The entry's activity row is in the write's own transaction.
 */
export class VaultEntryService {
  constructor(private readonly ctx: VaultCtx) {}

  /** Tells apart the reasons a fenced write did not apply: a stale key, a missing entry, a full vault. */
  private async refused(vaultId: string, keyVersion: number, entryId?: string): Promise<never> {
    const home = this.ctx.home(vaultId);
    const current = await currentKeyVersion(home, vaultId);
    if (current !== keyVersion) throw staleKeyVersion(current);
    if (entryId && !(await findVaultEntry(home, vaultId, entryId)))
      throw notFound("Password entry");
    throw new AppError(
      ErrorCode.SERVICE_UNAVAILABLE,
      "Password limit exceeded (entries or storage)",
    );
  }

  /** A member's delta pull of one vault, from its home shard, on the vault's own clock and cursor. */
  async pull(
    user: AuthUser,
    vaultId: string,
    since: string | undefined,
    resume: string | undefined,
  ) {
    await memberOf(this.ctx.directory, vaultId, user.id);
    const home = this.ctx.home(vaultId);
    const [body, keyVersion] = await Promise.all([
      new SyncService(home, this.ctx.limits.entries, this.ctx.claims, this.ctx.env).pull(
        vaultId,
        since,
        {
          resume,
          format: "json",
        },
      ),
      currentKeyVersion(home, vaultId),
    ]);
    return { body, keyVersion };
  }

  async create(user: AuthUser, vaultId: string, input: CreateEntryInput) {
    need(await memberOf(this.ctx.directory, vaultId, user.id), "write");
    const at = new Date().toISOString();
    const row = { ...newEntryRow(vaultId, randomId(), input, at), vaultId };
    const stored = await writeMinted(this.ctx.claims, vaultId, [row.id], () =>
      vaultInsert(
        this.ctx.home(vaultId),
        this.ctx.env,
        row,
        input.key_version,
        this.ctx.limits.entries,
        [activity(vaultId, user.id, "entry.added", row.id, at)],
      ),
    );
    if (!stored) await this.refused(vaultId, input.key_version);
    await tellMembers(this.ctx, vaultId);
    return { id: row.id, updated_at: at };
  }

  async update(user: AuthUser, vaultId: string, entryId: string, input: UpdateEntryInput) {
    need(await memberOf(this.ctx.directory, vaultId, user.id), "write");
    const home = this.ctx.home(vaultId);
    const current = await findVaultEntry(home, vaultId, entryId);
    if (!current) throw notFound("Password entry");
    const at = new Date().toISOString();
    const { key_version, ...fields } = input;
    const set = entryPatch(fields, current, { updatedAt: at });
    const ok = await vaultUpdate(
      home,
      this.ctx.env,
      vaultId,
      entryId,
      set,
      key_version,
      this.ctx.limits.entries.bytes,
      [activity(vaultId, user.id, "entry.changed", entryId, at)],
    );
    if (!ok) await this.refused(vaultId, key_version, entryId);
    await tellMembers(this.ctx, vaultId);
    return { id: entryId, updated_at: at };
  }

  async remove(user: AuthUser, vaultId: string, entryId: string) {
    need(await memberOf(this.ctx.directory, vaultId, user.id), "write");
    const at = new Date().toISOString();
    const ok = await vaultDelete(this.ctx.home(vaultId), this.ctx.env, vaultId, entryId, at, [
      activity(vaultId, user.id, "entry.deleted", entryId, at),
    ]);
    if (!ok) throw notFound("Password entry");
    await tellMembers(this.ctx, vaultId);
  }

  /**
   * Moves an entry between the personal vault and a shared one, or between two shared ones. The
   * client re-encrypts it for the destination (entry data is bound to its vault), so the move is a
   * new entry there and a tombstone here: inserted first, so a crash between leaves a copy, never
   * a loss. The caller must be able to edit both sides.
   */
  async move(user: AuthUser, input: MoveInput) {
    const { from_vault: from, to_vault: to, entry_id: entryId, key_version, ...fields } = input;
    if (from === to)
      throw new AppError(ErrorCode.VALIDATION_ERROR, "from_vault and to_vault are the same", {
        details: [{ field: "to_vault", message: "must differ from from_vault" }],
      });
    if (from) need(await memberOf(this.ctx.directory, from, user.id), "write");
    if (to) need(await memberOf(this.ctx.directory, to, user.id), "write");
    const source = from
      ? await findVaultEntry(this.ctx.home(from), from, entryId)
      : await findLive(this.ctx.personal(user.id), user.id, entryId);
    if (!source) throw notFound("Password entry");
    const at = new Date().toISOString();
    let newId: string;
    if (to) {
      if (key_version === undefined)
        throw new AppError(
          ErrorCode.VALIDATION_ERROR,
          "key_version is required for a shared vault",
          {
            details: [{ field: "key_version", message: "required when to_vault is a vault" }],
          },
        );
      newId = (await this.create(user, to, { ...fields, key_version })).id;
    } else {
      const personal = new PasswordService(
        this.ctx.personal(user.id),
        this.ctx.limits.personal,
        this.ctx.claims,
        this.ctx.env,
      );
      newId = (await personal.create(user.id, fields)).id;
    }
    if (from) {
      await vaultDelete(this.ctx.home(from), this.ctx.env, from, entryId, at, [
        activity(from, user.id, "entry.moved_out", entryId, at),
      ]);
      await tellMembers(this.ctx, from);
    } else {
      await new PasswordService(
        this.ctx.personal(user.id),
        this.ctx.limits.personal,
        this.ctx.claims,
        this.ctx.env,
      ).remove(user.id, entryId);
    }
    return { id: newId, updated_at: at };
  }
}
