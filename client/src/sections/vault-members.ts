/**
 * A shared vault's members: who is invited (pending), who accepted and waits for the key, and who
 * is in. An owner's or manager's open app gives the key to accepted members itself, but only for
 * a sharing key this device pinned; a key seen for the first time is compared first, a changed
 * one is shown and refused. Removing a member gives the vault a new key version at once (every
 * entry re-sealed, remaining members' copies made, committed) and then lists the entries the
 * removed person could read.
 */
import {
  rotateVault,
  wrapForMember,
  type PublicKey,
  type RotationResult,
  type VaultMember,
  type VaultRole,
  type VaultsApi,
} from "../../../core/vaults";
import { el } from "../../../core/ui";
import { trustedContactKey } from "../keys/contact-keys";
import { askFirstUse } from "../keys/first-use-panel";
import { explain } from "../keys/recovery-keys";
import type { AppContext } from "../shell/context";
import { canManage, ROLE_WORDS, type Me, type Place } from "../vaults/me";
import { leftSinceRotation } from "./vault-leave";
import { mayChangeRole, roleControl, transferControl, type RoleDeps } from "./vault-roles";

const STATE_WORDS = {
  pending: "Invited, not accepted yet",
  accepted: "Waiting for the key",
  wrapped: "In",
} as const;

export function mountMembers(
  host: HTMLElement,
  app: AppContext,
  api: VaultsApi,
  me: Me,
  id: string,
  place: () => Place | null,
  reload: () => Promise<void>,
) {
  const rows = el("tbody", { id: "member-rows" });
  const notes = el("div", { id: "member-notes", role: "status" });
  // Apart from the notes, which every render (a live refresh too) writes anew.
  const said = el("p", { className: "error", role: "alert", id: "member-said" });
  const exposed = el("section", {
    id: "rotation-report",
    className: "card",
    hidden: true,
    "aria-labelledby": "rotation-heading",
  });
  const inviteHost = el("div");
  host.replaceChildren(
    el(
      "section",
      { "aria-labelledby": "members-heading" },
      el("h2", { id: "members-heading" }, "Members"),
      el(
        "table",
        {},
        el(
          "thead",
          {},
          el("tr", {}, ...["Member", "Role", "State", "Actions"].map((t) => el("th", {}, t))),
        ),
        rows,
      ),
      said,
      notes,
      exposed,
      inviteHost,
    ),
  );

  /** The member's pinned key, or null with the reason shown when this device may not wrap for it. */
  async function pinnedKey(
    email: string,
  ): Promise<{ jwk: PublicKey } | { why: string; first: boolean }> {
    const { publicKey } = await app.api.sharingKey(email);
    const pin = await app.trust.peekKey(email, publicKey);
    if (pin.status === "ok") return { jwk: publicKey };
    if (pin.status === "changed")
      return {
        first: false,
        why: `${email}'s key changed: this device pinned ${pin.pinned}, the server now gives ${pin.fingerprint}. The vault key is not given to the new key until you compare it with ${email} (Contacts' keys).`,
      };
    return { first: true, why: `Compare ${email}'s key before giving them the vault key.` };
  }

  async function giveKey(m: VaultMember, ask: boolean): Promise<string | null> {
    const opened = place()?.opened;
    if (!opened || !m.user_id || !m.email) return null;
    let jwk: PublicKey;
    if (ask) {
      jwk = (await trustedContactKey(app.api, app.trust, m.email, "sharing", askFirstUse)).jwk;
    } else {
      const k = await pinnedKey(m.email);
      if (!("jwk" in k)) return k.why;
      jwk = k.jwk;
    }
    await wrapForMember(api, opened, m.user_id, jwk);
    app.toast(`${m.email} now has the vault's key`);
    return null;
  }

  const chosen = new Map<string, VaultRole>();
  const roleDeps = (myRole: VaultRole): RoleDeps => ({
    chosen,
    api,
    vaultId: id,
    myId: me.userId,
    myRole,
    say: (t) => (said.textContent = t),
    toast: (t) => app.toast(t),
    reload,
  });

  function memberRow(m: VaultMember, manage: boolean, waiting: Map<string, string>) {
    const actions = el("td", {});
    const myRole = place()?.vault.role;
    if (manage && myRole && mayChangeRole(roleDeps(myRole), m)) {
      actions.append(roleControl(roleDeps(myRole), m));
      const hand = transferControl(roleDeps(myRole), m);
      if (hand) actions.append(" ", hand);
    }
    if (manage && m.state === "accepted" && m.user_id) {
      const why = waiting.get(m.user_id);
      if (why) {
        const b = el(
          "button",
          { type: "button", className: "give-key" },
          "Compare key and give access",
        );
        b.addEventListener("click", async () => {
          try {
            await giveKey(m, true);
            await reload();
          } catch (e) {
            notes.textContent = explain(e, "Giving the key");
          }
        });
        actions.append(b);
      }
    }
    if (manage && m.user_id && m.user_id !== me.userId) {
      const remove = el("button", { type: "button", className: "danger remove-member" }, "Remove");
      remove.addEventListener("click", () => {
        const sure = el(
          "button",
          { type: "button", className: "danger confirm-remove" },
          `Remove ${m.email ?? "member"} and change the vault's key`,
        );
        sure.addEventListener("click", () => void removeMember(m, sure));
        remove.replaceWith(sure);
        sure.focus();
      });
      actions.append(" ", remove);
    }
    return el(
      "tr",
      { "data-member": m.email ?? "", "data-state": m.state },
      el("td", {}, m.email ?? "—", m.user_id === me.userId ? " (you)" : ""),
      el("td", {}, ROLE_WORDS[m.role]),
      el("td", { className: "member-state" }, STATE_WORDS[m.state]),
      actions,
    );
  }

  async function removeMember(m: VaultMember, button: HTMLButtonElement) {
    const opened = place()?.opened;
    if (!opened || !m.user_id) return;
    button.disabled = true;
    try {
      await api.removeMember(id, m.user_id);
      if (m.state !== "wrapped") {
        // Never given the key: nothing they could read, so the key stays as it is.
        app.toast(`Removed ${m.email ?? "the member"}; they never had the vault's key`);
        await reload();
        return;
      }
      await rotate(`${m.email ?? "The member"} was removed`);
    } catch (e) {
      notes.textContent = explain(e, "Removing the member");
      button.disabled = false;
    }
  }

  /** A new key version for the members still in (those whose key this device pinned), then the report. */
  async function rotate(what: string) {
    const opened = place()?.opened;
    if (!opened) return;
    const { members } = await api.members(id);
    const remaining: { userId: string; publicKey: PublicKey }[] = [];
    const left: string[] = [];
    for (const x of members) {
      if (x.state !== "wrapped" || !x.user_id || x.user_id === me.userId || !x.email) continue;
      const k = await pinnedKey(x.email);
      if ("jwk" in k) remaining.push({ userId: x.user_id, publicKey: k.jwk });
      else left.push(x.email);
    }
    notes.textContent = "Changing the vault's key…";
    const result = await rotateVault(api, opened, me, remaining);
    report(what, result, left);
    notes.textContent = "";
    await reload();
  }

  /**
   * Someone left on their own: their app held the key, and only a member still in can make a new
   * one, so an owner's or manager's app offers it here (src/domains/vaults keeps the log).
   */
  async function offerRotationAfterLeave(): Promise<HTMLElement[]> {
    const gone = await leftSinceRotation(api, id);
    if (!gone) return [];
    const go = el(
      "button",
      { type: "button", id: "rotate-after-leave" },
      "Change the vault's key now",
    );
    go.addEventListener("click", async () => {
      go.disabled = true;
      try {
        await rotate(gone === 1 ? "A member left" : `${gone} members left`);
      } catch (e) {
        notes.textContent = explain(e, "Changing the vault's key");
        go.disabled = false;
      }
    });
    return [
      el(
        "p",
        { className: "hint", id: "left-notice" },
        `${gone === 1 ? "A member has" : `${gone} members have`} left since the vault's key last changed. Their app held the key: give the vault a new one and see what they could read.`,
      ),
      go,
    ];
  }

  function report(what: string, r: RotationResult, left: string[]) {
    exposed.hidden = false;
    exposed.replaceChildren(
      el(
        "h3",
        { id: "rotation-heading", tabindex: -1 },
        `${what}; the vault is on key version ${r.keyVersion}`,
      ),
      el(
        "p",
        {},
        r.exposed.length
          ? `They could read these ${r.exposed.length === 1 ? "entry" : `${r.exposed.length} entries`} before: change their passwords (an entry's Reset in your vault automates it for a site that supports it).`
          : "The vault had no entries they could read.",
      ),
      el(
        "ul",
        { id: "exposed-entries" },
        ...r.exposed.map((e) =>
          el("li", {}, e.name, e.host ? el("span", { className: "muted" }, ` ${e.host}`) : ""),
        ),
      ),
      ...(left.length
        ? [
            el(
              "p",
              { className: "hint" },
              `Not given the new key yet (their key is not pinned on this device): ${left.join(", ")}.`,
            ),
          ]
        : []),
    );
    (exposed.querySelector("h3") as HTMLElement).focus();
  }

  function inviteForm() {
    const email = el("input", { id: "invite-vault-email", type: "email", autocomplete: "off" });
    const role = el(
      "select",
      { id: "invite-vault-role" },
      ...(["viewer", "editor", "manager", "owner"] as VaultRole[]).map((r) =>
        el("option", { value: r }, ROLE_WORDS[r]),
      ),
    );
    const error = el("p", { className: "error", role: "alert", id: "invite-vault-error" });
    const form = el(
      "form",
      { id: "invite-vault-form", method: "post", action: `/vaults/${id}`, noValidate: true },
      el("h3", {}, "Invite someone"),
      el("label", { htmlFor: "invite-vault-email" }, "Their email"),
      email,
      el("label", { htmlFor: "invite-vault-role" }, "Role"),
      role,
      el(
        "div",
        { className: "row" },
        el("button", { type: "submit", id: "invite-vault-submit" }, "Invite"),
      ),
      error,
    );
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      error.textContent = "";
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.value.trim())) {
        error.textContent = "Enter their email address, like name@example.com";
        return;
      }
      try {
        await api.invite(id, email.value.trim(), role.value as VaultRole);
        app.toast(`Invited ${email.value.trim()}; they find the invitation under Shared vaults`);
        form.reset();
        await reload();
      } catch (e) {
        error.textContent = explain(e, "Inviting");
      }
    });
    return form;
  }

  async function render() {
    const p = place();
    const manage = !!p && canManage(p.vault.role);
    const { members } = await api.members(id);
    const waiting = new Map<string, string>();
    const said: string[] = [];
    let gave = 0;
    // An owner's or manager's open app gives the key to accepted members whose key it pinned.
    if (manage && p?.opened)
      for (const m of members.filter((x) => x.state === "accepted" && x.user_id && x.email)) {
        try {
          const why = await giveKey(m, false);
          if (why) {
            waiting.set(m.user_id!, why);
            said.push(why);
          } else gave++;
        } catch (e) {
          said.push(explain(e, `Giving ${m.email} the key`));
        }
      }
    const fresh = gave ? (await api.members(id)).members : members;
    rows.replaceChildren(...fresh.map((m) => memberRow(m, manage, waiting)));
    const offer = manage && p?.opened ? await offerRotationAfterLeave() : [];
    notes.replaceChildren(...said.map((s) => el("p", { className: "hint" }, s)), ...offer);
    // Made once: a live refresh while the person types an address must not empty the form.
    if (!manage) inviteHost.replaceChildren();
    else if (!inviteHost.firstChild) inviteHost.replaceChildren(inviteForm());
  }

  return { render };
}
