/**
 * /import-export: bring entries in from another manager (the importers in core/importers)
 * or from this vault's own export, and export the vault.
 *
 * A file is read and shown as a preview first, each row with its problem if it has one; nothing is
 * sent until the person confirms. Entries are encrypted here (V3: envelope and blind indexes) and
 * posted in batches of 50, each with its own Idempotency-Key so a retried batch is not stored twice;
 * a progress bar follows the batches. The vault's own export (export-vault.ts, vault-file.ts) is
 * opened with its file password and every entry is sealed again here under a fresh id.
 */
import {
  FORMAT_LABELS,
  ImportFormatError,
  KDBX_WHAT,
  openIfProtected,
  PasswordNeededError,
  readImportFile,
  UnreadableFormatError,
  WrongPasswordError,
  type ImportFormat,
  type Skipped,
} from "../../../core/importers";
import { ApiError, type ImportEntry, type ImportProvider } from "../../../core/api";
import type { AppContext } from "../shell/context";
import { el, errorText } from "../../../core/ui";
import { cxfExportForm } from "./export-cxf";
import { plainExportForm, vaultExportForm } from "./export-vault";
import {
  isServerExport,
  isVaultFileBody,
  itemsOfServerExport,
  rowsOfItems,
  sealItem,
} from "./vault-file";
import {
  cxfCredentials,
  problemOf,
  readCxf,
  readOwnExport,
  sealCredential,
} from "../../../core/importers";
import { kindsText, previewTable, resultList, summaryText, type Row } from "./import-preview";

export const BATCH = 50;
const MAX_ENTRIES = 5000;
const MAX_FILE_BYTES = 12 * 1024 * 1024;

const FORMATS: [ImportFormat | "auto", string][] = [
  ["auto", "Detect from the file"],
  ...(Object.entries(FORMAT_LABELS) as [ImportFormat, string][]),
];
/** Detected from the file whatever the choice: its own shape says what it is. */
const CXF_LABEL = "Credential Exchange Format (CXF, logins and passkeys)";

export function mount(root: HTMLElement, app: AppContext): () => void {
  let gone = false;
  const file = el("input", {
    id: "import-file",
    type: "file",
    accept: ".csv,.json,.xml,.1pux,.zip,.kdbx,text/csv,application/json,application/zip",
  });
  const provider = el(
    "select",
    { id: "import-provider" },
    ...FORMATS.map(([v, t]) => el("option", { value: v }, t)),
  );
  const password = el("input", { id: "import-password", type: "password", autocomplete: "off" });
  const passwordLabel = el("label", { htmlFor: "import-password" }, "Export password");
  const passwordRow = el("div", { hidden: true }, passwordLabel, password);
  // A KeePass database opens with its master password, a key file, or both.
  const keyFile = el("input", { id: "import-key-file", type: "file" });
  const keyFileRow = el(
    "div",
    { hidden: true },
    el("label", { htmlFor: "import-key-file" }, "Key file (if the database uses one)"),
    keyFile,
  );
  const readBtn = el("button", { type: "submit" }, "Preview");
  const error = el("p", { id: "import-error", className: "error", role: "alert" });
  const summary = el("p", { id: "import-summary", "aria-live": "polite" });
  const kinds = el("p", { id: "import-kinds" });
  // It scrolls (a long file): focusable, so the keyboard can scroll it too.
  const table = el("table", {
    id: "import-preview",
    hidden: true,
    tabindex: 0,
    "aria-label": "Preview of the file's entries",
  });
  const start = el("button", { type: "button", id: "import-start", hidden: true }, "Import");
  const progress = el("progress", {
    id: "import-progress",
    max: 100,
    value: 0,
    hidden: true,
    "aria-label": "Import progress",
  });
  const result = el("div", { id: "import-result", "aria-live": "polite" });

  const form = el(
    "form",
    { id: "import-form" },
    el(
      "label",
      { htmlFor: "import-file" },
      "Export file from another password manager, or from this vault",
    ),
    file,
    el("label", { htmlFor: "import-provider" }, "Format"),
    provider,
    passwordRow,
    keyFileRow,
    el("div", { className: "row" }, readBtn),
    error,
  );
  root.classList.add("section");
  root.replaceChildren(
    el("h1", {}, "Import & export"),
    el(
      "section",
      { "aria-labelledby": "import-heading" },
      el("h2", { id: "import-heading" }, "Import"),
      el(
        "p",
        { className: "hint" },
        "Entries are encrypted on this device before they are sent. Nothing is imported until you confirm the preview.",
      ),
      form,
      summary,
      kinds,
      table,
      start,
      progress,
      result,
    ),
    el(
      "section",
      { "aria-labelledby": "export-heading" },
      el("h2", { id: "export-heading" }, "Export"),
      el(
        "p",
        { className: "hint" },
        "The encrypted exports open only with the file password you choose; this page imports them into any account.",
      ),
      vaultExportForm(app, () => gone),
      cxfExportForm(app, () => gone),
      plainExportForm(app, () => gone),
    ),
  );

  /** What the confirmed import sends: fresh credentials to encrypt, or an export's entries as they are. */
  let pending: { provider: ImportProvider; rows: Row[]; skipped: Skipped[] } | null = null;

  function showPreview(rows: Row[], skipped: Skipped[], label: string) {
    const ok = rows.filter((r) => !r.problem).length;
    summary.textContent = summaryText(label, rows, skipped);
    kinds.textContent = kindsText(rows);
    previewTable(table, rows, skipped);
    start.hidden = ok === 0;
    start.textContent = `Import ${ok} ${ok === 1 ? "entry" : "entries"}`;
  }

  function reset() {
    pending = null;
    table.hidden = true;
    start.hidden = true;
    summary.textContent = "";
    kinds.textContent = "";
    result.replaceChildren();
  }

  /** The password field, named for what it opens; with the key-file picker for a KeePass database. */
  function askPassword(keePass: boolean) {
    passwordLabel.textContent = keePass ? "Master password" : "Export password";
    passwordRow.hidden = false;
    keyFileRow.hidden = !keePass;
  }

  // A password belongs to one file: another file asks again when it needs one.
  file.addEventListener("change", () => {
    passwordRow.hidden = true;
    keyFileRow.hidden = true;
    password.value = "";
    keyFile.value = "";
    if (/\.kdbx$/i.test(file.files?.[0]?.name ?? "")) askPassword(true);
  });

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    error.textContent = "";
    reset();
    const f = file.files?.[0];
    if (!f) {
      error.textContent = "Choose a file first";
      return;
    }
    if (f.size > MAX_FILE_BYTES) {
      error.textContent = "The file is larger than 12 MB";
      return;
    }
    void f.arrayBuffer().then(async (buf) => {
      if (gone) return;
      let bytes: Uint8Array;
      try {
        // A password-protected file (this vault's CXF export, or Bitwarden's) is read as what it holds.
        bytes = await openIfProtected(
          new Uint8Array(buf),
          passwordRow.hidden ? undefined : password.value,
        );
      } catch (err) {
        return void showReadError(err);
      }
      if (gone) return;
      const own = bytes[0] === 0x50 ? null : readOwnExport(new TextDecoder().decode(bytes));
      if (own) {
        try {
          const vault = await app.vault.list();
          const { items, closed } = isVaultFileBody(own)
            ? { items: own.items, closed: [] }
            : isServerExport(own)
              ? await itemsOfServerExport(app.keys, app.session.userId, own)
              : { items: [], closed: [] };
          const rows = [
            ...(await rowsOfItems(items, vault, (e) => app.vault.secrets(e))),
            ...closed,
          ];
          if (gone) return;
          if (rows.length > MAX_ENTRIES) {
            error.textContent = `The file holds ${rows.length} entries; at most ${MAX_ENTRIES} can be imported at once`;
            return;
          }
          pending = { provider: "generic", rows, skipped: [] };
          showPreview(rows, [], "This vault's export");
        } catch (err) {
          showReadError(err);
        }
        return;
      }
      const cxf = bytes[0] === 0x50 ? null : readCxf(new TextDecoder().decode(bytes));
      if (cxf) {
        void cxfCredentials(cxf).then(
          ({ entries, skipped: notRead }) => {
            if (gone) return;
            const rows = entries.map(
              ({ credential, passkeys }): Row => ({
                credential,
                passkeys,
                problem: problemOf(credential, passkeys.length),
              }),
            );
            if (rows.length > MAX_ENTRIES) {
              error.textContent = `The file holds ${rows.length} entries; at most ${MAX_ENTRIES} can be imported at once`;
              return;
            }
            pending = { provider: "generic", rows, skipped: notRead };
            showPreview(rows, notRead, CXF_LABEL);
          },
          (err: unknown) => (error.textContent = errorText(err)),
        );
        return;
      }
      try {
        const chosen = provider.value === "auto" ? undefined : (provider.value as ImportFormat);
        const key = keyFileRow.hidden ? undefined : keyFile.files?.[0];
        const keyBytes = key ? new Uint8Array(await key.arrayBuffer()) : undefined;
        const parsed = await readImportFile(bytes, {
          format: chosen,
          password: passwordRow.hidden ? undefined : password.value,
          keyFile: keyBytes,
        });
        if (gone) return;
        const rows = parsed.credentials.map(
          (c): Row => ({
            credential: c,
            problem: problemOf(c, c.passkeys?.length),
            ...(c.passkeys ? { passkeys: c.passkeys } : {}),
          }),
        );
        if (rows.length + parsed.skipped.length === 0) {
          error.textContent = "The file holds no entries";
          return;
        }
        if (rows.length > MAX_ENTRIES) {
          error.textContent = `The file holds ${rows.length} entries; at most ${MAX_ENTRIES} can be imported at once`;
          return;
        }
        pending = { provider: parsed.provider, rows, skipped: parsed.skipped };
        showPreview(rows, parsed.skipped, FORMAT_LABELS[parsed.format]);
      } catch (err) {
        showReadError(err);
      }
    });
  });

  function showReadError(err: unknown) {
    if (err instanceof PasswordNeededError) {
      askPassword(err.what === KDBX_WHAT);
      password.focus();
      error.textContent = err.message;
    } else if (err instanceof WrongPasswordError) {
      error.textContent = `${err.message}: check it and press Preview again`;
    } else
      error.textContent =
        // A format the vault does not read: the sentence names what the file looks like and what is read.
        err instanceof UnreadableFormatError
          ? err.message
          : err instanceof ImportFormatError
            ? `This file cannot be read as that format: ${err.message}`
            : errorText(err);
  }

  start.addEventListener("click", () => {
    const job = pending;
    if (!job) return;
    start.disabled = true;
    readBtn.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    void (async () => {
      // Sealed a batch at a time, each batch just before it is sent, with a yield between: sealing
      // thousands at once (an envelope and some hundred HMACs each) holds the page for seconds.
      const ready = job.rows.filter((r) => !r.problem);
      const total = ready.length;
      const sealBatch = async (from: number): Promise<ImportEntry[]> => {
        const part = ready.slice(from, from + BATCH);
        await new Promise((r) => setTimeout(r, 0));
        return Promise.all(
          part.map((r) =>
            r.own
              ? sealItem(app.keys, app.session.userId, r.own)
              : sealCredential(app.keys, app.session.userId, r.credential, r.passkeys),
          ),
        );
      };
      let imported = 0;
      const errors: string[] = [];
      const run = crypto.randomUUID();
      for (let i = 0; i < total; i += BATCH) {
        const batch = await sealBatch(i);
        try {
          const res = await app.api.importPasswords(
            batch,
            job.provider,
            `import-${run}-${i / BATCH}`,
          );
          imported += res.imported;
          errors.push(...res.errors.map((e) => `Entries ${i + 1} to ${i + batch.length}: ${e}`));
        } catch (err) {
          // Step-up or the network: the rest would fail the same way, so stop and say where.
          if (err instanceof ApiError && err.body.code === "STEP_UP_REQUIRED")
            errors.push("Your sign-in is too old to import: sign out, sign in again and retry");
          else errors.push(`Entries ${i + 1} to ${i + batch.length}: ${errorText(err)}`);
          break;
        }
        progress.value = Math.round(((i + batch.length) / total) * 100);
      }
      result.replaceChildren(...resultList(imported, total, job.rows, job.skipped, errors));
      pending = null;
      start.hidden = true;
      await app.sync.syncNow();
      app.toast(`Imported ${imported} ${imported === 1 ? "entry" : "entries"}`);
    })()
      .catch((err: unknown) =>
        result.replaceChildren(el("p", { className: "error" }, `Import failed: ${errorText(err)}`)),
      )
      .finally(() => {
        start.disabled = false;
        readBtn.disabled = false;
      });
  });

  return () => {
    gone = true;
  };
}
