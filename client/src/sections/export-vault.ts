/**
 * The Export page's two vault exports (docs/decisions/client.md, "Import and export"):
 * - "Export the vault": every entry in one file encrypted with a password chosen here
 *   (vault-file.ts), which this page imports into any account.
 * - "Plain CSV": for leaving, a file anyone who gets it can read. It is behind a warning the person
 *   must tick and a recent sign-in asked of every device (POST /api/passwords/export/plain, which
 *   also puts it in the activity log), since the file is made here from the opened entries.
 */
import { ApiError } from "../../../core/api";
import type { EntrySecrets } from "../../../core/crypto";
import { download, el, errorText } from "../../../core/ui";
import type { AppContext } from "../shell/context";
import { MIN_EXPORT_PASSWORD } from "./export-cxf";
import { vaultFile, vaultItems, type VaultFileItem } from "./vault-file";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const today = () => new Date().toISOString().slice(0, 10);

function refusal(err: unknown): string {
  return err instanceof ApiError && err.status === 403
    ? "Export is refused from an unregistered device: register this browser under Devices"
    : err instanceof ApiError && err.body.code === "STEP_UP_REQUIRED"
      ? "This export needs a recent sign-in: confirm it's you and try again"
      : `Cannot export: ${errorText(err)}`;
}

const unreadText = (n: number) =>
  n
    ? ` ${plural(n, "entry", "entries")} this device cannot open ${n === 1 ? "is" : "are"} not in it.`
    : "";

/** "Export the vault": a file password twice, then the encrypted file. */
export function vaultExportForm(app: AppContext, isGone: () => boolean): HTMLElement {
  const pass = el("input", {
    id: "vault-password",
    type: "password",
    autocomplete: "new-password",
  });
  const again = el("input", {
    id: "vault-password-again",
    type: "password",
    autocomplete: "new-password",
  });
  const btn = el("button", { type: "submit", id: "export" }, "Export the vault");
  const status = el("p", { id: "export-status", "aria-live": "polite" });
  const error = el("p", { id: "export-error", className: "error", role: "alert" });
  const form = el(
    "form",
    { id: "export-form", "aria-labelledby": "export-vault-heading" },
    el("h3", { id: "export-vault-heading" }, "The whole vault"),
    el(
      "p",
      { className: "hint" },
      "Every entry (names, addresses, tags, folders, notes, passwords, TOTP, fields and passkeys) in one file encrypted on this device with a password you choose here. Only the file's format can be read without it. This page imports the file into this account or any other; keep the password.",
    ),
    el("label", { htmlFor: "vault-password" }, "Vault file password"),
    pass,
    el("label", { htmlFor: "vault-password-again" }, "Vault file password again"),
    again,
    el("div", { className: "row" }, btn),
    status,
    error,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    error.textContent = status.textContent = "";
    if (pass.value.length < MIN_EXPORT_PASSWORD)
      return void (error.textContent = `Choose a file password of at least ${MIN_EXPORT_PASSWORD} characters`);
    if (pass.value !== again.value) return void (error.textContent = "The two passwords differ");
    btn.disabled = true;
    status.textContent = "Preparing the file…";
    void (async () => {
      // The server's export rule (a registered device, a recent sign-in) holds for this file too, and it is audited.
      await app.api.exportPasswords();
      await app.sync.syncNow();
      const { items, unreadable } = await vaultItems(app);
      const file = await vaultFile(items, pass.value);
      if (isGone()) return;
      download(
        `credential-vault-export-${today()}.json`,
        JSON.stringify(file, null, 2),
        "application/json",
      );
      pass.value = again.value = "";
      status.textContent = `Exported ${plural(items.length, "entry", "entries")}.${unreadText(unreadable)}`;
      app.toast(`Exported ${plural(items.length, "entry", "entries")}`);
    })()
      .catch((err: unknown) => {
        status.textContent = "";
        error.textContent = refusal(err);
      })
      .finally(() => (btn.disabled = false));
  });
  return form;
}

/** RFC 4180 quoting: every value quoted, quotes doubled, line breaks kept inside the quotes. */
const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;

/** The columns: the generic CSV this page (and most managers) reads first, then the rest. */
export const PLAIN_COLUMNS = [
  "name",
  "url",
  "username",
  "password",
  "notes",
  "totp",
  "tags",
  "folder",
  "favorite",
  "kind",
  "other_urls",
  "fields",
] as const;

/** Custom fields and card or identity details, one "label: value" a line. */
function detailLines(s: EntrySecrets): string {
  const details = [
    ...(s.fields ?? []).map((f) => [f.name, f.value] as const),
    ...Object.entries(s.card ?? {}).map(([k, v]) => [`card.${k}`, String(v ?? "")] as const),
    ...Object.entries(s.identity ?? {}).map(
      ([k, v]) => [`identity.${k}`, String(v ?? "")] as const,
    ),
  ];
  return details.map(([k, v]) => `${k}: ${v}`).join("\n");
}

/** The vault as plain CSV, one entry a row. */
export function plainCsv(items: VaultFileItem[]): string {
  const rows = items.map((i) => {
    const s = i.secrets;
    return [
      i.name,
      i.url ?? i.website ?? "",
      s.username ?? "",
      s.password ?? "",
      s.notes ?? "",
      s.totp ?? "",
      (i.tags ?? []).join(";"),
      s.folder ?? "",
      s.favorite ? "1" : "",
      s.kind ?? "login",
      (s.urls ?? []).map((u) => u.url).join(" "),
      detailLines(s),
    ]
      .map(cell)
      .join(",");
  });
  return `${[PLAIN_COLUMNS.join(","), ...rows].join("\r\n")}\r\n`;
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
