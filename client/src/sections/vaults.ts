/**
 * Shared vaults (/vaults, and /vaults/<id> for one vault): the person's vaults with their role,
 * invitations to join one (the inviter's key fingerprint compared before accepting), and a new
 * vault. One vault's page (vault-room.ts) holds its entries and members. The vault page lists
 * "Personal" and each shared vault as places leading here (vault/places.ts).
 */
import { vaultsApi, createVault, type VaultInvitation } from "../../../core/vaults";
import { el, plural } from "../../../core/ui";
import { trustedContactKey } from "../keys/contact-keys";
import { askFirstUse } from "../keys/first-use-panel";
import { explain } from "../keys/recovery-keys";
import type { AppContext } from "../shell/context";
import { appLink, places, placeName, ROLE_WORDS, vaultMe, type Me } from "../vaults/me";
import { mountRoom } from "./vault-room";

export async function mount(root: HTMLElement, app: AppContext) {
  const id = app.subpath.replace(/^\//, "");
  if (id) return mountRoom(root, app, decodeURIComponent(id));
  return mountList(root, app);
}

async function mountList(root: HTMLElement, app: AppContext) {
  const api = vaultsApi(app.api);
  const status = el("p", { className: "muted", role: "status", id: "vaults-status" });
  const invitations = el("div", { id: "vault-invitations" });
  const invHeading = el("h2", { id: "vault-invitations-heading" }, "Invitations");
  const invSection = el(
    "section",
    { className: "card", "aria-labelledby": "vault-invitations-heading", hidden: true },
    invHeading,
    invitations,
  );
  const rows = el("tbody", { id: "vault-rows" });
  const empty = el(
    "p",
    { className: "muted", id: "vaults-empty", hidden: true },
    "You are in no shared vault yet.",
  );
  const nameInput = el("input", { id: "new-vault-name", maxLength: 200, autocomplete: "off" });
  const createError = el("p", { className: "error", role: "alert", id: "new-vault-error" });
  const createButton = el("button", { type: "submit", id: "new-vault-submit" }, "Create vault");
  const form = el(
    "form",
    { id: "new-vault-form", method: "post", action: "/vaults", noValidate: true },
    el("label", { htmlFor: "new-vault-name" }, "Vault name"),
    nameInput,
    el("div", { className: "row" }, createButton),
    createError,
  );
  root.replaceChildren(
    el(
      "div",
      { className: "section" },
      el("h1", { tabindex: -1 }, "Shared vaults"),
      el(
        "p",
        { className: "hint" },
        "A vault for a family or a team: each member's app holds the vault's key, wrapped for their own sharing key, so the server never can read it. Removing a member gives the vault a new key at once.",
      ),
      status,
      invSection,
      el(
        "section",
        { "aria-labelledby": "vaults-heading" },
        el("h2", { id: "vaults-heading" }, "Your vaults"),
        el(
          "table",
          {},
          el(
            "thead",
            {},
            el("tr", {}, ...["Vault", "Your role", "Members", "State"].map((t) => el("th", {}, t))),
          ),
          rows,
        ),
        empty,
      ),
      el(
        "section",
        { className: "card", "aria-labelledby": "new-vault-heading" },
        el("h2", { id: "new-vault-heading" }, "New shared vault"),
        form,
      ),
    ),
  );

  let me: Me | null = null;
  const ready = async () => (me ??= await vaultMe(app));

  async function render() {
    try {
      const list = await places(app, await ready());
      rows.replaceChildren(
        ...list.map((p) =>
          el(
            "tr",
            { "data-vault": p.vault.id },
            el("td", {}, appLink(app, `/vaults/${encodeURIComponent(p.vault.id)}`, placeName(p))),
            el("td", {}, ROLE_WORDS[p.vault.role]),
            el("td", {}, plural(p.vault.members, "member")),
            el("td", {}, p.opened ? "Open" : p.problem),
          ),
        ),
      );
      empty.hidden = list.length > 0;
      await renderInvitations((await api.invitations()).invitations);
      status.textContent = "";
    } catch (e) {
      status.textContent = explain(e, "Reading your shared vaults");
    }
  }

  async function renderInvitations(list: VaultInvitation[]) {
    invSection.hidden = list.length === 0;
    invitations.replaceChildren(...list.map(invitationCard));
  }

  function invitationCard(inv: VaultInvitation) {
    const who = inv.inviter_email ?? "Someone";
    const error = el("p", { className: "error", role: "alert" });
    const accept = el(
      "button",
      { type: "button", className: "accept-vault" },
      "Compare key and accept",
    );
    const decline = el("button", { type: "button", className: "secondary" }, "Decline");
    accept.addEventListener("click", async () => {
      accept.disabled = true;
      try {
        // The inviter's key is the one whose app will wrap the vault key for this person: it is
        // compared (and pinned) here, so a changed key is shown before anything is accepted.
        if (inv.inviter_email)
          await trustedContactKey(app.api, app.trust, inv.inviter_email, "sharing", askFirstUse);
        await api.accept(inv.id);
        app.toast(
          `You joined the vault as ${inv.role}. An owner or manager's app gives you its key.`,
        );
        await render();
      } catch (e) {
        error.textContent = explain(e, "Accepting the invitation");
        accept.disabled = false;
      }
    });
    decline.addEventListener("click", async () => {
      try {
        await api.decline(inv.id);
        await render();
      } catch (e) {
        error.textContent = explain(e, "Declining the invitation");
      }
    });
    return el(
      "div",
      { className: "vault-invitation", "data-invitation": inv.id },
      el("p", {}, `${who} invites you to a shared vault as ${ROLE_WORDS[inv.role].toLowerCase()}.`),
      el(
        "p",
        { className: "hint" },
        `Before you accept, compare ${who}'s key fingerprint with them (it is shown next); their app wraps the vault's key for you.`,
      ),
      el("div", { className: "row" }, accept, decline),
      error,
    );
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = nameInput.value.trim();
    createError.textContent = "";
    if (!name) {
      createError.textContent = "Give the vault a name, like Family or Team";
      return;
    }
    createButton.disabled = true;
    try {
      const vault = await createVault(api, await ready(), name);
      app.toast(`Created the vault ${name}`);
      form.reset();
      app.navigate(`/vaults/${encodeURIComponent(vault.id)}`);
    } catch (e) {
      createError.textContent = explain(e, "Creating the vault");
    } finally {
      createButton.disabled = false;
    }
  });

  await render();
  const stop = app.onLive("vaults", render);
  return () => stop();
}
