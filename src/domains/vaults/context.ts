import { dbFor, directoryDb, type Db } from "../../db/client";
import { announceTopic } from "../../db/clock-announce";
import type { EntryIdClaims } from "../../db/entry-ids";
import type { VaultLimits } from "../passwords";
import { membersOf } from "./repo";

/** Built per request: the directory, a vault's home shard by its id, the limits and the hubs. */
export type VaultCtx = {
  directory: Db;
  /** The vault's home shard: its id placed like a user's (docs/scale.md). */
  home: (vaultId: string) => Db;
  /** A person's own shard (for moves to and from the personal vault). */
  personal: (userId: string) => Db;
  env: object;
  claims: EntryIdClaims;
  limits: {
    membersPerVault: number;
    vaultsPerUser: number;
    entries: VaultLimits;
    personal: VaultLimits;
  };
};

export function vaultCtx(
  env: Record<string, unknown>,
  claims: EntryIdClaims,
  limits: VaultCtx["limits"],
): VaultCtx {
  return {
    directory: directoryDb(env),
    home: (vaultId) => dbFor(env, vaultId),
    personal: (userId) => dbFor(env, userId),
    env,
    claims,
    limits,
  };
}

/**
 * Tells every present member's devices that the vault changed. Read after the change committed, so
 * a removed member is no longer told, and one who just joined is.
 */
export async function tellMembers(ctx: VaultCtx, vaultId: string, extra: string[] = []) {
  const members = await membersOf(ctx.directory, vaultId);
  announceTopic(ctx.env, [...members.map((m) => m.userId), ...extra], "vaults");
}
