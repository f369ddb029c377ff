/**
 * A shared vault's page, moving entries: one of the person's own entries into this vault, and an
 * entry of this vault back into their personal vault (client/src/vaults/move.ts does the writes
 * in the order that loses nothing); and deleting one.
 */
import { vaultsApi, type OpenedVault, type VaultEntry } from "../../../core/vaults";
import { el } from "../../../core/ui";
import { explain } from "../keys/recovery-keys";
import type { AppContext } from "../shell/context";
import { MoveHalfDone, MoveRefused, moveIntoVault, moveToPersonal } from "../vaults/move";

const why = (e: unknown, doing: string) =>
  e instanceof MoveRefused || e instanceof MoveHalfDone ? e.message : explain(e, doing);

/** "Move in from your personal vault": a list of the person's own entries by name. */
export async function moveInForm(
  app: AppContext,
  opened: () => OpenedVault | null,
  moved: () => Promise<void>,
): Promise<HTMLElement> {
  const own = await app.vault.list();
  const select = el(
    "select",
    { id: "move-in-entry" },
    el("option", { value: "" }, "Choose one of your entries"),
    ...own.map((e) => el("option", { value: e.id }, e.name)),
  );
  const error = el("p", { className: "error", role: "alert", id: "move-in-error" });
  const go = el("button", { type: "submit", id: "move-in-submit" }, "Move into this vault");
  const form = el(
    "form",
    { id: "move-in-form", noValidate: true },
    el("h3", {}, "Move in from your personal vault"),
    el(
      "p",
      { className: "hint" },
      "The entry is sealed again for this vault on this device; every member can then read it. Its personal copy is deleted once the vault holds the new one.",
    ),
    el("label", { htmlFor: "move-in-entry" }, "Entry"),
    select,
    el("div", { className: "row" }, go),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const v = opened();
    if (!select.value) {
      error.textContent = "Choose the entry to move";
      return;
    }
    if (!v) return;
    const name = select.selectedOptions[0]?.textContent ?? "The entry";
    go.disabled = true;
    try {
      await moveIntoVault(app, v, select.value);
      app.toast(`Moved ${name} into ${v.name}`);
      select.selectedOptions[0]?.remove();
      await moved();
    } catch (e) {
      error.textContent = why(e, "Moving the entry");
      if (e instanceof MoveHalfDone) await moved();
    } finally {
      go.disabled = false;
    }
  });
  return form;
}

/** The entry's "Move to my personal vault" button; `said` shows what happened. */
export function moveOutButton(
  app: AppContext,
  v: OpenedVault,
  e: VaultEntry,
  said: HTMLElement,
  moved: () => Promise<void>,
): HTMLButtonElement {
  const b = el(
    "button",
    { type: "button", className: "secondary", id: "vault-entry-move-out" },
    "Move to my personal vault",
  );
  b.addEventListener("click", async () => {
    b.disabled = true;
    said.textContent = "";
    try {
      await moveToPersonal(app, v, e);
      app.toast(`Moved ${e.name} to your personal vault`);
      await moved();
    } catch (err) {
      said.textContent = why(err, "Moving the entry");
      b.disabled = false;
      if (err instanceof MoveHalfDone) await moved().catch(() => undefined);
    }
  });
  return b;
}

/**
 * The entry's "Delete": asked twice, for every member loses it. Offered also for an entry that does
 * not open (a copy a cut move left behind, bound to no entry), so it can be cleared.
 */
export function deleteButton(
  app: AppContext,
  vaultId: string,
  e: VaultEntry,
  said: HTMLElement,
  deleted: () => Promise<void>,
): HTMLButtonElement {
  const b = el(
    "button",
    { type: "button", className: "danger", id: "vault-entry-delete" },
    "Delete",
  );
  b.addEventListener("click", () => {
    const sure = el(
      "button",
      { type: "button", className: "danger", id: "vault-entry-delete-confirm" },
      `Delete ${e.name || "this entry"} for every member`,
    );
    sure.addEventListener("click", async () => {
      sure.disabled = true;
      try {
        await vaultsApi(app.api).deleteEntry(vaultId, e.id);
        app.toast(`Deleted ${e.name || "the entry"}`);
        await deleted();
      } catch (err) {
        said.textContent = explain(err, "Deleting the entry");
        sure.disabled = false;
      }
    });
    b.replaceWith(sure);
    sure.focus();
  });
  return b;
}
