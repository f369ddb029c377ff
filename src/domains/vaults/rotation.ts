import type { AuthUser } from "../../kernel/context";
import { conflict } from "../../lib/errors";
import { AppError, ErrorCode } from "../../lib/errors";
import {
  currentKeyVersion,
  rotationCommit,
  rotationRemaining,
  rotationStage,
  type StagedEntry,
} from "../passwords";
import { memberOf, need, staleKeyVersion } from "./access";
import { tellMembers, type VaultCtx } from "./context";
import * as repo from "./repo";
import { revokeForRotation } from "./tokens";

/**
 * A new key version (docs/crypto.md, "Shared vaults"): begun by an owner or manager, filled in
 * batches (entries re-encrypted under new item keys, members' copies of the new vault key), and
 * committed as one fenced change on the home shard. Any manager's device can resume one begun by
 * another: the state is all on the server.
 */
export class VaultRotationService {
  constructor(private readonly ctx: VaultCtx) {}

  private async manager(user: AuthUser, vaultId: string) {
    need(await memberOf(this.ctx.directory, vaultId, user.id), "manage");
    return this.ctx.home(vaultId);
  }

  /** The rotation in progress, or null, with what is left to re-encrypt. */
  async state(user: AuthUser, vaultId: string) {
    const home = await this.manager(user, vaultId);
    return { rotation: await this.describe(vaultId, home) };
  }

  private async describe(vaultId: string, home: ReturnType<VaultCtx["home"]>) {
    const versions = await repo.keyVersions(home, vaultId);
    const current = versions.find((v) => v.state === "current")?.version ?? 0;
    const rotating = versions.find((v) => v.state === "rotating")?.version ?? null;
    if (rotating === null)
      return { key_version: current, rotating_to: null, remaining: [], wrapped_members: [] };
    const [remaining, members] = await Promise.all([
      rotationRemaining(home, vaultId, rotating),
      repo.membersOf(this.ctx.directory, vaultId),
    ]);
    return {
      key_version: current,
      rotating_to: rotating,
      remaining,
      wrapped_members: members.filter((m) => m.nextKeyVersion === rotating).map((m) => m.userId),
    };
  }

  /**
   * Opens version `from + 1`. Asking again while that rotation is open returns it (a device that
   * lost the answer resumes); a `from` that is not current is stale.
   */
  async begin(user: AuthUser, vaultId: string, from: number) {
    const home = await this.manager(user, vaultId);
    const at = new Date().toISOString();
    if (!(await repo.beginVersion(home, vaultId, from, user.id, at))) {
      const state = await this.describe(vaultId, home);
      if (state.key_version !== from) throw staleKeyVersion(state.key_version);
      if (state.rotating_to !== from + 1) throw conflict("Another rotation is in progress");
      return { rotation: state };
    }
    await repo.activityInsert(home, {
      vaultId,
      actorId: user.id,
      action: "key.rotation_begun",
      at,
    });
    return { rotation: await this.describe(vaultId, home) };
  }

  private async open(vaultId: string, version: number) {
    const home = this.ctx.home(vaultId);
    const versions = await repo.keyVersions(home, vaultId);
    if (!versions.some((v) => v.version === version && v.state === "rotating"))
      throw staleKeyVersion(versions.find((v) => v.state === "current")?.version ?? null);
    return home;
  }

  /** Re-encrypted entries; the ones changed since the client read them come back to redo. */
  async stage(user: AuthUser, vaultId: string, version: number, entries: StagedEntry[]) {
    await this.manager(user, vaultId);
    const home = await this.open(vaultId, version);
    return { stale: await rotationStage(home, vaultId, version, entries) };
  }

  /** Members' copies of the new key; each must name a present member. */
  async wraps(
    user: AuthUser,
    vaultId: string,
    version: number,
    wraps: { user_id: string; wrapped_key: string }[],
  ) {
    await this.manager(user, vaultId);
    const home = await this.open(vaultId, version);
    const unknown = await repo.setNextWraps(this.ctx.directory, vaultId, version, wraps);
    if (unknown.length > 0)
      throw new AppError(ErrorCode.VALIDATION_ERROR, "Not a member of this vault", {
        details: unknown.map((u) => ({ field: "wraps", message: `${u} is not a member` })),
      });
    return { rotation: await this.describe(vaultId, home) };
  }

  /**
   * The fence. The committer's own copy of the new key must be there (or nobody could read the
   * vault after); entries left to re-encrypt refuse the commit with their ids. An interrupted
   * commit (the home shard done, the directory not) is finished by calling again.
   */
  async commit(user: AuthUser, vaultId: string, version: number) {
    const home = await this.manager(user, vaultId);
    const current = await currentKeyVersion(home, vaultId);
    if (current === version) {
      const at = new Date().toISOString();
      await repo.promoteVersion(this.ctx.directory, vaultId, version, at);
      await revokeForRotation(this.ctx.directory, vaultId, version, at);
      return { rotation: await this.describe(vaultId, home) };
    }
    await this.open(vaultId, version);
    const me = await repo.findMember(this.ctx.directory, vaultId, user.id);
    if (me?.nextKeyVersion !== version)
      throw conflict("Post your own copy of the new key before committing");
    const at = new Date().toISOString();
    if (!(await rotationCommit(home, this.ctx.env, vaultId, version, at))) {
      const state = await this.describe(vaultId, home);
      throw new AppError(ErrorCode.CONFLICT, "Entries are left to re-encrypt", {
        extra: { remaining: state.remaining.map((r) => r.id) },
      });
    }
    await repo.promoteVersion(this.ctx.directory, vaultId, version, at);
    await revokeForRotation(this.ctx.directory, vaultId, version, at);
    await repo.activityInsert(home, { vaultId, actorId: user.id, action: "key.rotated", at });
    await tellMembers(this.ctx, vaultId);
    return { rotation: await this.describe(vaultId, home) };
  }
}
