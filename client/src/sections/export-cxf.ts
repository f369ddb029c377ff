/**
 * The Export page's "Passkeys and logins (CXF)": the vault's logins, notes and passkeys as a FIDO
 * Credential Exchange Format (CXF) document, built in the browser by the core (cxfDocument, which
 * the command line's `vault export --format cxf` calls too) from the opened entries and protected
 * here with a password the person chooses (importers/bitwarden-crypto.ts protectExport:
 * PBKDF2-SHA256, AES-256-CBC with HMAC-SHA256). Nothing leaves the device in clear: the vault's
 * own export is never plaintext, so neither is this one; this page's import opens the file with
 * its password. What the document leaves out (used passkeys, cards and identities) is counted and
 * said after the download.
 */
import { cxfDocument, protectExport, type CxfDocument } from "../../../core/importers";
import type { AppContext } from "../shell/context";
import { plural } from "../../../core/ui";
import { passwordExportForm } from "./export-form";
import { vaultItems } from "./vault-file";

export type CxfExport = CxfDocument & { unreadable: number };

/** The vault's entries as one CXF account (version 1.0), with what was left out and why. */
export async function vaultAsCxf(app: AppContext): Promise<CxfExport> {
  const { items, unreadable } = await vaultItems(app);
  const who = { rpId: location.hostname, userId: app.session.userId, email: app.session.email };
  return { ...(await cxfDocument(items, who)), unreadable };
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
