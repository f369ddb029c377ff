/**
 * The Export page's "Passkeys and logins (CXF)": the vault's logins, notes and passkeys as a FIDO
 * Credential Exchange Format (CXF) document, built in the browser from the opened entries and
 * protected there with a password the person chooses (importers/bitwarden-crypto.ts protectExport:
 * PBKDF2-SHA256, AES-256-CBC with HMAC-SHA256). Nothing leaves the device in clear: the vault's
 * own export is never plaintext, so neither is this one; this page's import opens the file with
 * its password.
 *
 * CXF: a passkey whose signature counter is not zero MUST NOT be exported (an importer starts it
 * at zero, and the site would see a counter go back), and the exporter should say so: such
 * passkeys are left out and counted. Cards and identities have no item type here yet: counted too.
 */
import { ApiError } from "../../../core/api";
import { protectExport } from "../importers/bitwarden-crypto";
import { toCxfItem } from "../../../core/passkeys";
import type { AppContext } from "../shell/context";
import { download, el, errorText } from "../../../core/ui";

export const MIN_EXPORT_PASSWORD = 10;

export type CxfExport = {
  doc: object;
  entries: number;
  passkeys: number;
  usedPasskeys: number;
  notCarried: number;
  unreadable: number;
};

/** The vault's entries as one CXF account (version 1.0), with what was left out and why. */
export async function vaultAsCxf(app: AppContext): Promise<CxfExport> {
  const out = { entries: 0, passkeys: 0, usedPasskeys: 0, notCarried: 0, unreadable: 0 };
  const items: object[] = [];
  for (const e of await app.vault.list()) {
    let s;
    try {
      s = await app.vault.secrets(e);
    } catch {
      out.unreadable++;
      continue;
    }
    if (s.kind === "card" || s.kind === "identity") {
      out.notCarried++;
      continue;
    }
    const unused = (s.passkeys ?? []).filter((p) => p.sign_count === 0);
    out.usedPasskeys += (s.passkeys ?? []).length - unused.length;
    if (!s.username && !s.password && !s.notes && !unused.length) continue;
    items.push(
      await toCxfItem({
        id: e.id,
        name: e.name,
        url: e.url ?? "",
        createdAt: e.created_at,
        updatedAt: e.updated_at,
        username: s.username,
        password: s.password,
        notes: s.notes,
        passkeys: unused,
      }),
    );
    out.entries++;
    out.passkeys += unused.length;
  }
  const host = location.hostname;
  const doc = {
    version: { major: 1, minor: 0 },
    exporterRpId: host,
    exporterDisplayName: "Credential vault",
    timestamp: Math.floor(Date.now() / 1000),
    accounts: [
      {
        id: btoa(app.session.userId).replace(/=+$/, ""),
        username: "",
        email: app.session.email ?? "",
        collections: [],
        items,
      },
    ],
  };
  return { doc, ...out };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What the person is told after the download: what is in the file and what was left out. */
export function exportSummary(x: Omit<CxfExport, "doc">): string {
  const left = [
    x.usedPasskeys
      ? `${plural(x.usedPasskeys, "passkey")} already used to sign in (the format carries only passkeys whose counter is still zero)`
      : "",
    x.notCarried
      ? `${plural(x.notCarried, "card or identity", "cards and identities")} (not in this format yet: use "Export the vault")`
      : "",
    x.unreadable ? `${plural(x.unreadable, "entry", "entries")} this device cannot open` : "",
  ].filter(Boolean);
  return `Exported ${plural(x.entries, "entry", "entries")} with ${plural(x.passkeys, "passkey")}.${left.length ? ` Left out: ${left.join("; ")}.` : ""}`;
}

/** The form: a password twice, then the download. */
export function cxfExportForm(app: AppContext, isGone: () => boolean): HTMLElement {
  const pass = el("input", { id: "cxf-password", type: "password", autocomplete: "new-password" });
  const again = el("input", {
    id: "cxf-password-again",
    type: "password",
    autocomplete: "new-password",
  });
  const btn = el(
    "button",
    { type: "submit", id: "export-cxf" },
    "Export passkeys and logins (CXF)",
  );
  const status = el("p", { id: "cxf-status", "aria-live": "polite" });
  const error = el("p", { id: "cxf-error", className: "error", role: "alert" });
  const form = el(
    "form",
    { id: "cxf-form", "aria-labelledby": "cxf-heading" },
    el("h3", { id: "cxf-heading" }, "Passkeys and logins (CXF)"),
    el(
      "p",
      { className: "hint" },
      "A file in the FIDO Credential Exchange Format with your logins, notes and passkeys, encrypted on this device with a password you choose here. Keep the password: without it the file cannot be opened, and this page asks for it when you import the file.",
    ),
    el("label", { htmlFor: "cxf-password" }, "File password"),
    pass,
    el("label", { htmlFor: "cxf-password-again" }, "File password again"),
    again,
    el("div", { className: "row" }, btn),
    status,
    error,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    error.textContent = "";
    status.textContent = "";
    if (pass.value.length < MIN_EXPORT_PASSWORD)
      return void (error.textContent = `Choose a file password of at least ${MIN_EXPORT_PASSWORD} characters`);
    if (pass.value !== again.value) return void (error.textContent = "The two passwords differ");
    btn.disabled = true;
    status.textContent = "Preparing the file…";
    void (async () => {
      // The server's export rule (a registered device, a recent sign-in) holds for this file too.
      await app.api.exportPasswords();
      await app.sync.syncNow();
      const { doc, ...counts } = await vaultAsCxf(app);
      const file = await protectExport(JSON.stringify(doc), pass.value);
      if (isGone()) return;
      download(
        `credential-vault-cxf-${new Date().toISOString().slice(0, 10)}.json`,
        JSON.stringify(file, null, 2),
        "application/json",
      );
      pass.value = again.value = "";
      status.textContent = exportSummary(counts);
    })()
      .catch((err: unknown) => {
        status.textContent = "";
        error.textContent =
          err instanceof ApiError && err.status === 403
            ? "Export is refused from an unregistered device: register this browser under Devices"
            : `Cannot export: ${errorText(err)}`;
      })
      .finally(() => (btn.disabled = false));
  });
  return form;
}
