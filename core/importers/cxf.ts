/**
 * The FIDO Credential Exchange Format (CXF) both ways, shared by the web app's Export and Import
 * page and the command line's `vault export --format cxf` and `vault import` (docs/cli.md).
 *
 * Out: the vault as a CXF document, version 1.0: one account whose items are the entries' logins,
 * notes and passkeys (core/passkeys toCxfItem). The web app then encrypts it with a file password;
 * the command line writes it as it is. In: a document's items as imported credentials with their
 * passkeys (core/passkeys fromCxf), each a login, or a secure note when a note is all it holds.
 *
 * CXF: a passkey whose signature counter is not zero MUST NOT be exported (an importer starts it
 * at zero, and the site would see a counter go back), and the exporter should say so: such
 * passkeys are left out and counted. Cards and identities have no item type here yet: counted too.
 */
import { base64url } from "../../src/kernel/base64";
import { domainOf } from "../crypto";
import { fromCxf, toCxfItem, type StoredPasskey } from "../passkeys";
import type { ImportedCredential, Skipped } from "./model";
import type { VaultFileItem } from "./vault-file";

export type CxfDocument = {
  doc: object;
  /** Entries written, passkeys written, and what was left out: used passkeys, cards and identities. */
  entries: number;
  passkeys: number;
  usedPasskeys: number;
  notCarried: number;
};

/** Who exports: the vault's host as the exporter, and the account the items belong to. */
export type CxfExporter = { rpId: string; userId: string; email: string | null };

export async function cxfDocument(
  items: VaultFileItem[],
  who: CxfExporter,
  now = new Date(),
): Promise<CxfDocument> {
  const out = { entries: 0, passkeys: 0, usedPasskeys: 0, notCarried: 0 };
  const cxfItems: object[] = [];
  for (const e of items) {
    const s = e.secrets;
    if (s.kind === "card" || s.kind === "identity") {
      out.notCarried++;
      continue;
    }
    const unused = (s.passkeys ?? []).filter((p) => p.sign_count === 0);
    out.usedPasskeys += (s.passkeys ?? []).length - unused.length;
    if (!s.username && !s.password && !s.notes && !unused.length) continue;
    cxfItems.push(
      await toCxfItem({
        id: e.id,
        name: e.name,
        url: e.url ?? "",
        createdAt: e.created_at ?? now.toISOString(),
        updatedAt: e.updated_at ?? now.toISOString(),
        username: s.username ?? "",
        password: s.password ?? "",
        notes: s.notes ?? "",
        passkeys: unused,
      }),
    );
    out.entries++;
    out.passkeys += unused.length;
  }
  const doc = {
    version: { major: 1, minor: 0 },
    exporterRpId: who.rpId,
    exporterDisplayName: "Credential vault",
    timestamp: Math.floor(now.getTime() / 1000),
    accounts: [
      {
        id: base64url.encode(new TextEncoder().encode(who.userId)),
        username: "",
        email: who.email ?? "",
        collections: [],
        items: cxfItems,
      },
    ],
  };
  return { doc, ...out };
}

/** A CXF document's items as this vault imports them: a login (or a note) each, its passkeys beside it. */
export async function cxfCredentials(doc: unknown): Promise<{
  entries: { credential: ImportedCredential; passkeys: StoredPasskey[] }[];
  skipped: Skipped[];
}> {
  const { entries, skipped } = await fromCxf(doc);
  return {
    entries: entries.map((e) => ({
      credential: {
        name: e.name,
        url: e.url || null,
        website: domainOf(e.url) || null,
        username: e.username,
        password: e.password,
        notes: e.notes,
        totp: null,
        tags: [],
        folder: null,
        favorite: false,
        // An item with only a note is the secure note toCxfItem writes for one.
        kind: e.username || e.password || e.passkeys.length ? "login" : "note",
        urls: [],
        fields: [],
        history: [],
        changes: [],
      },
      passkeys: e.passkeys,
    })),
    skipped: Array.from({ length: skipped }, () => ({
      name: "(an item)",
      reason: "no login, or a passkey whose key cannot be read",
    })),
  };
}
