/**
 * One shared vault (/vaults/<id>): its entries (viewers read them, editors and above add and
 * change them) and its members (vault-members.ts). Every entry is opened in this browser with
 * the vault's key, in the vault's place: a blob the server moved from elsewhere is not shown.
 */
import {
  addVaultEntry,
  updateVaultEntry,
  vaultEntries,
  vaultsApi,
  renameVault,
  type VaultEntry,
} from "../../../core/vaults";
import { el, plural } from "../../../core/ui";
import { explain } from "../keys/recovery-keys";
import type { AppContext } from "../shell/context";
import {
  appLink,
  canManage,
  canWrite,
  openPlace,
  ROLE_WORDS,
  vaultMe,
  type Place,
} from "../vaults/me";
import { mountVaultEnd } from "./vault-leave";
import { mountMembers } from "./vault-members";
import { deleteButton, moveInForm, moveOutButton } from "./vault-move";

export async function mountRoom(root: HTMLElement, app: AppContext, id: string) {
  const api = vaultsApi(app.api);
  const heading = el("h1", { tabindex: -1, id: "vault-room-title" }, "Shared vault");
  const status = el("p", { className: "muted", role: "status", id: "vault-room-status" });
  const role = el("p", { className: "muted", id: "vault-room-role" });
  const entriesList = el("ul", {
    id: "vault-entries",
    className: "entries",
    "aria-label": "Entries of this vault",
  });
  const entriesEmpty = el(
    "p",
    { className: "muted", hidden: true },
    "This vault has no entries yet.",
  );
  const detail = el("section", {
    id: "vault-entry",
    className: "card",
    "aria-labelledby": "vault-entry-heading",
    hidden: true,
  });
  const formHost = el("div");
  const moveHost = el("div");
  const membersHost = el("div");
  const renameHost = el("div");
  const endHost = el("div");
  root.replaceChildren(
    el(
      "div",
      { className: "section" },
      el("p", {}, appLink(app, "/vaults", "All shared vaults")),
      heading,
      role,
      status,
      el(
        "section",
        { "aria-labelledby": "vault-entries-heading" },
        el("h2", { id: "vault-entries-heading" }, "Entries"),
        entriesList,
        entriesEmpty,
        detail,
        formHost,
        moveHost,
      ),
      membersHost,
      renameHost,
      endHost,
    ),
  );

  const me = await vaultMe(app).catch((e: unknown) => {
    status.textContent = explain(e, "Opening your sharing key");
    return null;
  });
  if (!me) return;
  let place: Place | null = null;
  let entries: VaultEntry[] = [];

  async function load() {
    const { vault } = await api.get(id);
    place = await openPlace(api, me!, vault);
    heading.textContent = place.opened?.name ?? "Shared vault";
    role.textContent = `Your role: ${ROLE_WORDS[vault.role]} · ${plural(vault.members, "member")} · key version ${vault.key_version}`;
    status.textContent = place.problem;
    entries = place.opened ? await vaultEntries(api, place.opened) : [];
    entriesList.replaceChildren(...entries.map(entryRow));
    entriesEmpty.hidden = !place.opened || entries.length > 0;
    // Forms are made once: a live refresh while the person types must not empty them.
    if (!(place.opened && canWrite(vault.role))) formHost.replaceChildren();
    else if (!formHost.firstChild) formHost.replaceChildren(entryForm(null));
    if (!(place.opened && canManage(vault.role))) renameHost.replaceChildren();
    else if (!renameHost.firstChild) renameHost.replaceChildren(renameForm());
    if (!(place.opened && canWrite(vault.role))) moveHost.replaceChildren();
    else if (!moveHost.firstChild)
      moveHost.replaceChildren(await moveInForm(app, () => place?.opened ?? null, load));
    end.render();
  }

  function entryRow(e: VaultEntry) {
    const site = e.website || e.url || "";
    const open = el(
      "button",
      { type: "button", className: "linklike", "data-entry": e.id },
      e.name,
    );
    open.addEventListener("click", () => showEntry(e));
    return el(
      "li",
      { "data-entry-row": e.id },
      open,
      site ? el("span", { className: "muted" }, ` ${site}`) : "",
      e.secrets ? "" : el("span", { className: "error" }, ` ${e.error ?? "Not shown"}`),
    );
  }

  function showEntry(e: VaultEntry) {
    detail.hidden = false;
    const fields = el("dl", { id: "vault-entry-fields" });
    if (e.secrets) {
      const pw = el("span", { id: "vault-entry-password" }, "••••••••");
      const reveal = el(
        "button",
        { type: "button", className: "secondary", id: "vault-entry-reveal" },
        "Show password",
      );
      reveal.addEventListener("click", () => {
        pw.textContent = e.secrets!.password;
        reveal.hidden = true;
      });
      fields.append(
        el("dt", {}, "Website"),
        el("dd", {}, e.website || e.url || "—"),
        el("dt", {}, "Username"),
        el("dd", { id: "vault-entry-username" }, e.secrets.username || "—"),
        el("dt", {}, "Password"),
        el("dd", {}, pw, " ", reveal),
        ...(e.secrets.notes ? [el("dt", {}, "Notes"), el("dd", {}, e.secrets.notes)] : []),
      );
    }
    const said = el("p", { className: "error", role: "alert", id: "vault-entry-said" });
    const opened = place?.opened;
    const gone = async () => {
      if (!said.textContent) detail.hidden = true;
      await load();
    };
    const writer = !!opened && canWrite(opened.vault.role);
    const move = [
      ...(writer && e.secrets ? [moveOutButton(app, opened!, e, said, gone)] : []),
      ...(writer ? [deleteButton(app, id, e, said, gone)] : []),
    ];
    const close = el("button", { type: "button", className: "secondary" }, "Close");
    close.addEventListener("click", () => (detail.hidden = true));
    const edit = el("button", { type: "button", id: "vault-entry-edit" }, "Edit");
    edit.addEventListener("click", () => formHost.replaceChildren(entryForm(e)));
    detail.replaceChildren(
      el("h3", { id: "vault-entry-heading", tabindex: -1 }, e.name),
      e.secrets ? fields : el("p", { className: "error" }, e.error ?? ""),
      el(
        "div",
        { className: "row" },
        ...(e.secrets && place?.vault && canWrite(place.vault.role) ? [edit] : []),
        ...move,
        close,
      ),
      said,
    );
    (detail.querySelector("h3") as HTMLElement).focus();
  }

  function entryForm(e: VaultEntry | null) {
    const f = (name: string, label: string, value: string, type = "text") => {
      const input = el("input", { id: `ve-${name}`, name, type, value, autocomplete: "off" });
      return [el("label", { htmlFor: `ve-${name}` }, label), input] as const;
    };
    const s = e?.secrets;
    const parts = {
      name: f("name", "Name", e?.name ?? ""),
      website: f("website", "Website", e?.website ?? ""),
      username: f("username", "Username", s?.username ?? ""),
      password: f("password", "Password", s?.password ?? "", "password"),
      notes: f("notes", "Notes", s?.notes ?? ""),
    };
    const error = el("p", { className: "error", role: "alert", id: "ve-error" });
    const save = el("button", { type: "submit", id: "ve-save" }, e ? "Save changes" : "Add entry");
    const form = el(
      "form",
      { id: "vault-entry-form", method: "post", action: `/vaults/${id}`, noValidate: true },
      el("h3", {}, e ? `Edit ${e.name}` : "Add an entry to this vault"),
      ...Object.values(parts).flat(),
      el("div", { className: "row" }, save),
      error,
    );
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const v = (k: keyof typeof parts) => parts[k][1].value.trim();
      if (!v("name")) {
        error.textContent = "Give the entry a name";
        return;
      }
      save.disabled = true;
      try {
        const input = {
          name: v("name"),
          website: v("website") || null,
          url: null,
          secrets: {
            ...(s ?? { category: "", totp: "" }),
            username: v("username"),
            password: parts.password[1].value,
            notes: v("notes"),
          },
        };
        if (e) await updateVaultEntry(api, place!.opened!, e.id, input);
        else await addVaultEntry(api, place!.opened!, input);
        app.toast(e ? `Saved ${input.name}` : `Added ${input.name} to the vault`);
        detail.hidden = true;
        formHost.replaceChildren(entryForm(null));
        await load();
      } catch (err) {
        error.textContent = explain(err, "Saving the entry");
        save.disabled = false;
      }
    });
    return form;
  }

  function renameForm() {
    const input = el("input", { id: "vault-rename", value: place!.opened!.name, maxLength: 200 });
    const error = el("p", { className: "error", role: "alert" });
    const form = el(
      "form",
      { id: "vault-rename-form", method: "post", action: `/vaults/${id}`, noValidate: true },
      el("h2", {}, "Rename"),
      el("label", { htmlFor: "vault-rename" }, "Vault name"),
      input,
      el(
        "div",
        { className: "row" },
        el("button", { type: "submit", className: "secondary" }, "Rename"),
      ),
      error,
    );
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try {
        if (!input.value.trim()) throw new Error("the name is empty");
        await renameVault(api, place!.opened!, input.value.trim());
        await load();
      } catch (err) {
        error.textContent = explain(err, "Renaming");
      }
    });
    return el("section", { className: "card" }, form);
  }

  const reload = async () => {
    try {
      await load();
      await members.render();
    } catch (e) {
      status.textContent = explain(e, "Reading this vault");
    }
  };
  const members = mountMembers(membersHost, app, api, me, id, () => place, reload);
  const end = mountVaultEnd(
    endHost,
    app,
    api,
    me,
    () => place,
    () => entries.length,
  );
  await reload();
  const stop = app.onLive("vaults", reload);
  return () => stop();
}
