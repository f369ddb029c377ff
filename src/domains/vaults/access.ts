import type { Db } from "../../db/client";
import type { VaultMemberRow, VaultRole } from "../../db/schema";
import { AppError, ErrorCode, forbidden, notFound } from "../../lib/errors";
import { findMember } from "./repo";

/** What each role may do (owner ⊃ manager ⊃ editor ⊃ viewer). */
export const CAN = {
  read: ["owner", "manager", "editor", "viewer"],
  write: ["owner", "manager", "editor"],
  manage: ["owner", "manager"],
  own: ["owner"],
} as const satisfies Record<string, readonly VaultRole[]>;
export type Ability = keyof typeof CAN;

/**
 * The caller's membership, or 404: a vault the caller is not in is answered as if it did not
 * exist, so an id tells a stranger nothing. A removed member has no row, so this refuses them on
 * their very next request.
 */
export async function memberOf(directory: Db, vaultId: string, userId: string) {
  const m = await findMember(directory, vaultId, userId);
  if (!m) throw notFound("Vault");
  return m;
}

export function need(m: VaultMemberRow, ability: Ability) {
  if (!(CAN[ability] as readonly string[]).includes(m.role))
    throw forbidden(`Your role in this vault (${m.role}) may not do this`);
}

/** A manager may not hand out or take away the owner role; only an owner may. */
export function needToGrant(m: VaultMemberRow, role: VaultRole) {
  need(m, "manage");
  if (role === "owner" && m.role !== "owner") throw forbidden("Only an owner may make an owner");
}

export const staleKeyVersion = (current: number | null) =>
  new AppError(ErrorCode.CONFLICT, "Stale vault key version", {
    extra: { key_version: current },
  });

export const limitReached = (what: string, max: number) =>
  new AppError(ErrorCode.UNPROCESSABLE, `${what} limit reached`, { extra: { max } });

export const lastOwner = () =>
  new AppError(ErrorCode.CONFLICT, "A vault must keep an owner: transfer ownership first");
