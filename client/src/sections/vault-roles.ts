/**
 * A member's role in a shared vault, changed by an owner or manager, and ownership handed to
 * another member by an owner. The server decides (src/domains/vaults/access.ts): a manager may
 * not make or change an owner, and the last owner keeps the role; its refusal is shown as is. A
 * role is not a key: changing one re-wraps nothing, and a member made viewer can still read what
 * they read before (docs/decisions/client.md).
 */
import type { VaultMember, VaultRole, VaultsApi } from "../../../core/vaults";
import { el } from "../../../core/ui";
import { explain } from "../keys/recovery-keys";
import { ROLE_WORDS } from "../vaults/me";

const SHORT = { owner: "Owner", manager: "Manager", editor: "Editor", viewer: "Viewer" } as const;

export type RoleDeps = {
  api: VaultsApi;
  vaultId: string;
  myId: string;
  myRole: VaultRole;
  say: (text: string) => void;
  toast: (text: string) => void;
  reload: () => Promise<void>;
  /** Roles chosen but not applied yet, by member: a live refresh redraws the rows and keeps them. */
  chosen: Map<string, VaultRole>;
};

/** Whether the caller may touch this member's role at all (the server checks again). */
export const mayChangeRole = (d: RoleDeps, m: VaultMember) =>
  !!m.user_id && (d.myRole === "owner" || (d.myRole === "manager" && m.role !== "owner"));

/** A select of the roles the caller may give, and a button that applies the chosen one. */
export function roleControl(d: RoleDeps, m: VaultMember): HTMLElement {
  const who = m.email ?? "member";
  const roles: VaultRole[] =
    d.myRole === "owner"
      ? ["viewer", "editor", "manager", "owner"]
      : ["viewer", "editor", "manager"];
  const select = el(
    "select",
    { className: "member-role", "aria-label": `Role of ${who}` },
    ...roles.map((r) => el("option", { value: r }, SHORT[r])),
  );
  select.value = d.chosen.get(m.user_id!) ?? m.role;
  select.addEventListener("change", () => d.chosen.set(m.user_id!, select.value as VaultRole));
  const apply = el("button", { type: "button", className: "secondary set-role" }, "Change role");
  apply.addEventListener("click", async () => {
    const role = select.value as VaultRole;
    d.say("");
    if (role === m.role) {
      d.chosen.delete(m.user_id!);
      return d.say(`${who} is already ${SHORT[role].toLowerCase()}.`);
    }
    apply.disabled = true;
    try {
      await d.api.setRole(d.vaultId, m.user_id!, role);
      d.chosen.delete(m.user_id!);
      d.toast(`${who} is now ${ROLE_WORDS[role].toLowerCase()}`);
      await d.reload();
    } catch (e) {
      d.say(explain(e, `Changing ${who}'s role`));
      d.chosen.delete(m.user_id!);
      select.value = m.role;
      apply.disabled = false;
      // A live refresh may have drawn the row again meanwhile: draw it from what the server holds.
      await d.reload();
    }
  });
  return el("span", { className: "role-control" }, select, " ", apply);
}

/**
 * Owner only, for another member: they become the owner and the caller a manager. Asked twice,
 * as a removal is, since the caller cannot take it back alone.
 */
export function transferControl(d: RoleDeps, m: VaultMember): HTMLElement | null {
  if (d.myRole !== "owner" || !m.user_id || m.user_id === d.myId || m.role === "owner") return null;
  const who = m.email ?? "this member";
  const first = el("button", { type: "button", className: "secondary transfer" }, "Make owner");
  first.addEventListener("click", () => {
    const sure = el(
      "button",
      { type: "button", className: "danger confirm-transfer" },
      `Make ${who} the owner; you become a manager`,
    );
    sure.addEventListener("click", async () => {
      sure.disabled = true;
      d.say("");
      try {
        await d.api.transfer(d.vaultId, m.user_id!);
        d.toast(`${who} now owns the vault; you are a manager`);
        await d.reload();
      } catch (e) {
        d.say(explain(e, "Handing over the vault"));
        sure.disabled = false;
      }
    });
    first.replaceWith(sure);
    sure.focus();
  });
  return first;
}
