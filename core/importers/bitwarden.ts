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

/** What a value is, for a skipped item's reason. */
const what = (v: unknown) =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "a list"
      : typeof v === "number"
        ? "a number"
        : `a ${typeof v}`;
const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === "object" && !Array.isArray(v);
/** The objects of a list the file may hold as null, or with null members: a null is nothing to read. */
const objects = <T extends object>(v: unknown): T[] =>
  Array.isArray(v) ? (v.filter(isObject) as T[]) : [];
/** `{id, name}` pairs (folders, collections) as a map; members without both strings are ignored. */
const names = (v: unknown) =>
  new Map(
    objects<{ id?: unknown; name?: unknown }>(v)
      .filter((x) => typeof x.id === "string" && typeof x.name === "string")
      .map((x) => [x.id as string, x.name as string]),
  );

/**
 * What a password-protected export lacks to be opened, or null when it has it all. A file with the
 * flags but without its salt, key check or data can never be opened: refused before a password is
 * asked for.
 */
export function protectedExportGaps(doc: unknown, what = "Bitwarden export"): string | null {
  if (!isObject(doc) || doc.encrypted !== true || doc.passwordProtected !== true) return null;
  const missing = [
    typeof doc.salt !== "string" && "salt",
    typeof doc.kdfType !== "number" && "key-derivation type",
    typeof doc.kdfIterations !== "number" && "iteration count",
    typeof doc.encKeyValidation_DO_NOT_EDIT !== "string" && "password check",
    typeof doc.data !== "string" && "encrypted data",
  ].filter((m): m is string => !!m);
  if (!missing.length) return null;
  const list =
    missing.length === 1
      ? missing[0]
      : `${missing.slice(0, -1).join(", ")} and ${missing[missing.length - 1]}`;
  const again =
    what === "Bitwarden export" ? "Export the vault from Bitwarden again" : "Export it again";
  return `This password-protected ${what} lacks its ${list}, so no password can open it. ${again} and import the new file.`;
}

/**
 * The export's items; `passkeys` (from bitwardenPasskeys) puts each login's passkeys in its entry.
 * Without it (the synchronous reader), an item's passkeys are said to be left out. Any part may be
 * null or missing (hand-edited and third-party files): an item that is not an object is skipped
 * with the reason, a null list is an empty one.
 */
export function fromMgr1Doc(doc: Mgr1Doc, passkeys?: Mgr1Passkeys): ParseOutput {
  const gaps = protectedExportGaps(doc);
  if (gaps) throw new ImportFormatError(gaps);
  if (doc.encrypted && !doc.passwordProtected) throw new ImportFormatError(ACCOUNT_KEY_EXPORT);
  if (!Array.isArray(doc.items))
    throw new ImportFormatError("Not a Bitwarden JSON export: no items array");
  const folders = names(doc.folders);
  const collections = names(doc.collections);
  const out: ParseOutput = { credentials: [], skipped: [] };
  doc.items.forEach((raw: unknown, idx) => {
    if (!isObject(raw)) {
      out.skipped.push({
        name: `Item ${idx + 1}`,
        reason: `not an item (${what(raw)} where an item object belongs)`,
      });
      return;
    }
    const item = raw as Item;
    const login = isObject(item.login) ? item.login : null;
    const changes: string[] = [];
    // An item without a type or a login (an organisation export's bare entry: a name filed in a
    // collection) is a secure note, so its name is not lost.
    const bare =
      !login &&
      !isObject(item.card) &&
      !isObject(item.identity) &&
      (s(item.name) !== "" || s(item.notes) !== "");
    const inferred = isObject(item.card) ? 3 : isObject(item.identity) ? 4 : bare ? 2 : 1;
    const type = item.type == null ? inferred : item.type === 1 && bare ? 2 : item.type;
    if (type === 2 && item.type !== 2) changes.push("no login details: kept as a secure note");
    const kind = KINDS[type];
    const name = s(item.name) || "Unnamed item";
    if (!kind) {
      out.skipped.push({
        name,
        reason: `item type ${String(item.type)} is not one this vault holds`,
      });
      return;
    }
    if (item.deletedDate) {
      out.skipped.push({ name, reason: "in the source's trash" });
      return;
    }
    const tags: string[] = [];
    for (const id of Array.isArray(item.collectionIds) ? item.collectionIds : []) {
      const c = typeof id === "string" ? collections.get(id) : undefined;
      if (c) tags.push(c);
    }
    if (tags.length) changes.push(`collections kept as tags: ${tags.join(", ")}`);
    const ownFolder =
      typeof item.folderId === "string" ? (folders.get(item.folderId) ?? null) : null;
    // The organisation export has collections where the personal one has folders.
    const folder = ownFolder ?? tags[0] ?? null;
    if (!ownFolder && folder) changes.push(`collection "${folder}" is its folder`);
    if (item.archivedDate) {
      tags.push("archived");
      changes.push('archived in the source: tagged "archived"');
    }
    const fields: CustomField[] = [];
    for (const f of objects<NonNullable<Item["fields"]>[number]>(item.fields)) {
      if (f.type === 3) {
        changes.push(`linked field "${s(f.name)}" not kept (it points at another field)`);
        continue;
      }
      fields.push({ name: s(f.name), value: s(f.value), type: FIELD[f.type ?? 0] ?? "text" });
    }
    const keys = passkeys?.get(item);
    const listed = Array.isArray(login?.fido2Credentials) ? login.fido2Credentials.length : 0;
    const unread = keys ? keys.unreadable : listed;
    if (unread)
      changes.push(
        `${unread === 1 ? "a passkey" : `${unread} passkeys`} not imported (${keys ? "its key cannot be read" : "read only when the file is opened on the Import page"})`,
      );
    const uris = objects<{ uri?: unknown; match?: unknown }>(login?.uris).map((u) => ({
      url: clean(u.uri),
      match: matchRule(u.match ?? 0),
    }));
    const c = isObject(item.card) ? item.card : null;
    const card = c
      ? {
          cardholder: s(c.cardholderName),
          brand: s(c.brand),
          number: s(c.number),
          exp_month: s(c.expMonth),
          exp_year: s(c.expYear),
          code: s(c.code),
        }
      : undefined;
    const id = isObject(item.identity) ? item.identity : undefined;
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
        username: s(login?.username),
        password: s(login?.password),
        notes: s(item.notes),
        totp: s(login?.totp) || null,
        folder,
        favorite: item.favorite === true,
        tags,
        fields,
        card: card && Object.fromEntries(Object.entries(card).filter(([, v]) => v)),
        identity: identity && Object.fromEntries(Object.entries(identity).filter(([, v]) => v)),
        history: objects<{ password?: unknown; lastUsedDate?: unknown }>(item.passwordHistory).map(
          (h) => ({
            password: s(h.password),
            changed_at: s(h.lastUsedDate) || new Date(0).toISOString(),
          }),
        ),
        passkeys: keys?.passkeys,
        changes,
      }),
    );
  });
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
