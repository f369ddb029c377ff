/**
 * The Export page's two vault exports (docs/decisions/client.md, "Import and export"):
 * - "Export the vault": every entry in one file encrypted with a password chosen here
 *   (vault-file.ts), which this page imports into any account.
 * - "Plain CSV": for leaving, a file anyone who gets it can read. It is behind a warning the person
 *   must tick and a recent sign-in asked of every device (POST /api/passwords/export/plain, which
 *   also puts it in the activity log), since the file is made here from the opened entries.
 */
import { plainCsv } from "../../../core/importers";
import { download, el, plural } from "../../../core/ui";
import type { AppContext } from "../shell/context";
import { passwordExportForm, refusal } from "./export-form";

export { plainCsv };
import { vaultFile, vaultItems, type VaultFileItem } from "./vault-file";

const today = () => new Date().toISOString().slice(0, 10);

const unreadText = (n: number) =>
  n
    ? ` ${plural(n, "entry", "entries")} this device cannot open ${n === 1 ? "is" : "are"} not in it.`
    : "";

/** "Export the vault": a file password twice, then the encrypted file. */
export function vaultExportForm(app: AppContext, isGone: () => boolean): HTMLElement {
  return passwordExportForm(app, isGone, {
    ids: {
      form: "export-form",
      password: "vault-password",
      again: "vault-password-again",
      button: "export",
      status: "export-status",
      error: "export-error",
      heading: "export-vault-heading",
    },
    heading: "The whole vault",
    hint: "Every entry (names, addresses, tags, folders, notes, passwords, TOTP, fields and passkeys) in one file encrypted on this device with a password you choose here. Only the file's format can be read without it. This page imports the file into this account or any other; keep the password.",
    label: "Vault file password",
    button: "Export the vault",
    make: async (password) => {
      const { items, unreadable } = await vaultItems(app);
      const file = await vaultFile(items, password);
      return {
        name: `credential-vault-export-${today()}.json`,
        text: JSON.stringify(file, null, 2),
        summary: `Exported ${plural(items.length, "entry", "entries")}.${unreadText(unreadable)}`,
        toast: `Exported ${plural(items.length, "entry", "entries")}`,
      };
    },
  });
}

/** "Plain CSV": the warning, the box to tick, then a recent sign-in, then the file. */
export function plainExportForm(app: AppContext, isGone: () => boolean): HTMLElement {
  const ack = el("input", { id: "plain-ack", type: "checkbox" });
  const btn = el(
    "button",
    { type: "submit", id: "export-plain", disabled: true },
    "Export as plain CSV",
  );
  const status = el("p", { id: "plain-status", "aria-live": "polite" });
  const error = el("p", { id: "plain-error", className: "error", role: "alert" });
  ack.addEventListener("change", () => (btn.disabled = !ack.checked));
  const form = el(
    "form",
    { id: "plain-form", "aria-labelledby": "plain-heading" },
    el("h3", { id: "plain-heading" }, "Plain CSV (unencrypted), for leaving"),
    el(
      "p",
      { className: "warning", id: "plain-warning" },
      "This file is not encrypted: anyone who gets it, or any program that reads your downloads or backups, can read every password in it. Import it where you are going, then delete it (and empty the trash). Passkeys and attachments are not in it.",
    ),
    el(
      "label",
      { htmlFor: "plain-ack", className: "check" },
      ack,
      " I understand that this file is readable by anyone who has it",
    ),
    el("div", { className: "row" }, btn),
    status,
    error,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!ack.checked) return;
    error.textContent = status.textContent = "";
    btn.disabled = true;
    void (async () => {
      // A recent sign-in on every device: the server asks, the app's "Confirm it's you" answers.
      await app.api.exportPlain();
      await app.sync.syncNow();
      const { items, unreadable } = await vaultItems(app);
      if (isGone()) return;
      download(`credential-vault-plain-${today()}.csv`, plainCsv(items), "text/csv");
      ack.checked = false;
      status.textContent = `Exported ${plural(items.length, "entry", "entries")} in plain text.${unreadText(unreadable)} Delete the file once it is imported.`;
    })()
      .catch((err: unknown) => {
        status.textContent = "";
        error.textContent = refusal(err);
      })
      .finally(() => (btn.disabled = !ack.checked));
  });
  return form;
}
