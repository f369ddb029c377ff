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
import { protectExport } from "../../../core/importers";
import { toCxfItem } from "../../../core/passkeys";
import type { AppContext } from "../shell/context";
import { plural } from "../../../core/ui";
import { passwordExportForm } from "./export-form";

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
  return passwordExportForm(app, isGone, {
    ids: {
      form: "cxf-form",
      password: "cxf-password",
      again: "cxf-password-again",
      button: "export-cxf",
      status: "cxf-status",
      error: "cxf-error",
      heading: "cxf-heading",
    },
    heading: "Passkeys and logins (CXF)",
    hint: "A file in the FIDO Credential Exchange Format with your logins, notes and passkeys, encrypted on this device with a password you choose here. Keep the password: without it the file cannot be opened, and this page asks for it when you import the file.",
    label: "File password",
    button: "Export passkeys and logins (CXF)",
    make: async (password) => {
      const { doc, ...counts } = await vaultAsCxf(app);
      const file = await protectExport(JSON.stringify(doc), password);
      return {
        name: `credential-vault-cxf-${new Date().toISOString().slice(0, 10)}.json`,
        text: JSON.stringify(file, null, 2),
        summary: exportSummary(counts),
      };
    },
  });
}
