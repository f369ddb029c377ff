/**
 * source_mgr_1 (Bitwarden) JSON and CSV. The JSON keeps every item type (login, secure note, card,
 * identity), every address with its match rule, custom fields by type, password history,
 * collections and archived state, and a login's passkeys (`fido2Credentials`, read with Web Crypto
 * before the items: bitwardenPasskeys). A password-protected export is opened first (bitwarden-crypto.ts).
 */
import type { CustomField, FieldType } from "../entry";
import {
  clean,
  credential,
  finish,
  ImportFormatError,
  matchRule,
  splitTags,
  truthy,
  type ParseOutput,
} from "./model";
import { csvRecords } from "./csv";
import { requireHeaders } from "./headers";
import { fromBitwarden, type StoredPasskey } from "../passkeys";

type Item = {
  type?: number;
  name?: string;
  notes?: string | null;
  favorite?: boolean;
  folderId?: string | null;
  collectionIds?: string[] | null;
  archivedDate?: string | null;
  deletedDate?: string | null;
  fields?: { name?: string | null; value?: string | null; type?: number }[] | null;
  passwordHistory?: { password?: string; lastUsedDate?: string }[] | null;
  login?: {
    username?: string | null;
    password?: string | null;
    totp?: string | null;
    uris?: { uri?: string | null; match?: number | null }[] | null;
    fido2Credentials?: Parameters<typeof fromBitwarden>[0][] | null;
  } | null;
  card?: Record<string, string | null> | null;
  identity?: Record<string, string | null> | null;
};
export type Mgr1Doc = {
  encrypted?: boolean;
  passwordProtected?: boolean;
  folders?: { id: string; name: string }[];
  collections?: { id: string; name: string }[];
  items?: Item[];
};

const KINDS: Record<number, "login" | "note" | "card" | "identity"> = {
  1: "login",
  2: "note",
  3: "card",
  4: "identity",
};
const FIELD: Record<number, FieldType> = { 0: "text", 1: "hidden", 2: "boolean" };

/** The text an account-key export gets: why it cannot be read anywhere else, and what to do. */
export const ACCOUNT_KEY_EXPORT =
  'This Bitwarden export is encrypted with your Bitwarden account\'s key ("Account restricted"), which only that Bitwarden account can open: no other app can read it. In Bitwarden, export again as .json (Encrypted) with the file type "Password protected" and a password of your choosing, or as plain .json, and import that file here.';

const s = (v: unknown) => (typeof v === "string" ? v : "");

/** Each item's passkeys as the vault keeps them, and how many of its credentials could not be read. */
export type Mgr1Passkeys = Map<object, { passkeys: StoredPasskey[]; unreadable: number }>;

/** The passkeys of an export's logins, read ahead (importing a PKCS#8 key is Web Crypto, so async). */
export async function bitwardenPasskeys(doc: Mgr1Doc): Promise<Mgr1Passkeys> {
  const out: Mgr1Passkeys = new Map();
  for (const item of Array.isArray(doc.items) ? doc.items : []) {
    const raw = item?.login?.fido2Credentials;
    if (!Array.isArray(raw) || !raw.length) continue;
    const read = await Promise.all(
      raw.map((c) => (c && typeof c === "object" ? fromBitwarden(c) : Promise.resolve(null))),
    );
    const passkeys = read.filter((p): p is StoredPasskey => p !== null);
    out.set(item, { passkeys, unreadable: read.length - passkeys.length });
  }
  return out;
}

/**
 * The export's items; `passkeys` (from bitwardenPasskeys) puts each login's passkeys in its entry.
 * Without it (the synchronous reader), an item's passkeys are said to be left out.
 */
export function fromMgr1Doc(doc: Mgr1Doc, passkeys?: Mgr1Passkeys): ParseOutput {
  if (doc.encrypted && !doc.passwordProtected) throw new ImportFormatError(ACCOUNT_KEY_EXPORT);
  if (!Array.isArray(doc.items))
    throw new ImportFormatError("Not a Bitwarden JSON export: no items array");
  const folders = new Map((doc.folders ?? []).map((f) => [f.id, f.name]));
  const collections = new Map((doc.collections ?? []).map((c) => [c.id, c.name]));
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const item of doc.items) {
    const kind = KINDS[item.type ?? 0];
    const name = s(item.name) || "Unnamed item";
    if (!kind) {
      out.skipped.push({
        name,
        reason: `item type ${String(item.type)} is not one this vault holds`,
      });
      continue;
    }
    if (item.deletedDate) {
      out.skipped.push({ name, reason: "in the source's trash" });
      continue;
    }
    const changes: string[] = [];
    const tags: string[] = [];
    for (const id of item.collectionIds ?? []) {
      const c = collections.get(id);
      if (c) tags.push(c);
    }
    if (tags.length) changes.push(`collections kept as tags: ${tags.join(", ")}`);
    if (item.archivedDate) {
      tags.push("archived");
      changes.push('archived in the source: tagged "archived"');
    }
    const fields: CustomField[] = [];
    for (const f of item.fields ?? []) {
      if (f.type === 3) {
        changes.push(`linked field "${s(f.name)}" not kept (it points at another field)`);
        continue;
      }
      fields.push({ name: s(f.name), value: s(f.value), type: FIELD[f.type ?? 0] ?? "text" });
    }
    const keys = passkeys?.get(item);
    const listed = Array.isArray(item.login?.fido2Credentials)
      ? item.login.fido2Credentials.length
      : 0;
    const unread = keys ? keys.unreadable : listed;
    if (unread)
      changes.push(
        `${unread === 1 ? "a passkey" : `${unread} passkeys`} not imported (${keys ? "its key cannot be read" : "read only when the file is opened on the Import page"})`,
      );
    const uris = (item.login?.uris ?? []).map((u) => ({
      url: clean(u.uri),
      match: matchRule(u.match ?? 0),
    }));
    const card = item.card
      ? {
          cardholder: s(item.card.cardholderName),
          brand: s(item.card.brand),
          number: s(item.card.number),
          exp_month: s(item.card.expMonth),
          exp_year: s(item.card.expYear),
          code: s(item.card.code),
        }
      : undefined;
    const id = item.identity ?? undefined;
    const identity = id
      ? {
          title: s(id.title),
          first_name: s(id.firstName),
          middle_name: s(id.middleName),
          last_name: s(id.lastName),
          email: s(id.email),
          phone: s(id.phone),
          company: s(id.company),
          address1: s(id.address1),
          address2: [s(id.address2), s(id.address3)].filter(Boolean).join(", "),
          city: s(id.city),
          state: s(id.state),
          postal_code: s(id.postalCode),
          country: s(id.country),
          username: s(id.username),
          ssn: s(id.ssn),
          passport: s(id.passportNumber),
          license: s(id.licenseNumber),
        }
      : undefined;
    out.credentials.push(
      credential({
        name,
        kind,
        urls: uris,
        username: s(item.login?.username),
        password: s(item.login?.password),
        notes: s(item.notes),
        totp: s(item.login?.totp) || null,
        folder: item.folderId ? (folders.get(item.folderId) ?? null) : null,
        favorite: item.favorite === true,
        tags,
        fields,
        card: card && Object.fromEntries(Object.entries(card).filter(([, v]) => v)),
        identity: identity && Object.fromEntries(Object.entries(identity).filter(([, v]) => v)),
        history: (item.passwordHistory ?? []).map((h) => ({
          password: s(h.password),
          changed_at: s(h.lastUsedDate) || new Date(0).toISOString(),
        })),
        passkeys: keys?.passkeys,
        changes,
      }),
    );
  }
  return finish(out);
}

/** source_mgr_1 CSV: folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp. */
export function parseMgr1Csv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(
    headers,
    ["type", "name", "login_uri", "login_username", "login_password"],
    "Bitwarden CSV",
  );
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const r of records) {
    const type = (r.type ?? "").toLowerCase();
    if (type && type !== "login" && type !== "note") {
      out.skipped.push({
        name: r.name || "Unnamed item",
        reason: `a ${type}: Bitwarden's CSV does not hold its details (export as JSON to keep it)`,
      });
      continue;
    }
    // Custom fields are written one per line as "name: value".
    const fields = splitTags(r.fields ?? "", /\r?\n/).map((line): CustomField => {
      const at = line.indexOf(": ");
      return at > 0
        ? { name: line.slice(0, at), value: line.slice(at + 2), type: "text" }
        : { name: line, value: "", type: "text" };
    });
    out.credentials.push(
      credential({
        name: r.name,
        kind: type === "note" ? "note" : "login",
        urls: splitTags(r.login_uri ?? "", /,/),
        username: r.login_username,
        password: r.login_password,
        notes: r.notes ?? "",
        fields,
        totp: r.login_totp,
        folder: r.folder,
        favorite: truthy(r.favorite ?? ""),
      }),
    );
  }
  return finish(out);
}
