/**
 * Items of kinds the vault has no form of its own for (a bank account, a Wi-Fi network, a server, a
 * passport …) arrive as the nearest kind it has, every value it cannot place kept as a named field,
 * and the change said: the person sees what the source called it and where it went.
 */
import type { CardDetails, CustomField, EntryKind, IdentityDetails } from "../entry";

/** What a source item is called, and the vault kind it becomes. */
export type SourceKind = { label: string; kind: EntryKind };

/**
 * Source kinds by the names the managers give them (lower case). A server, database, API
 * credential, Wi-Fi network or e-mail account is used with a username and password: a login. A
 * passport, licence or social-security number fills an identity's own slot. The rest are notes.
 */
const KINDS: Record<string, SourceKind> = {
  login: { label: "login", kind: "login" },
  password: { label: "password", kind: "login" },
  "credit card": { label: "card", kind: "card" },
  credit_card: { label: "card", kind: "card" },
  card: { label: "card", kind: "card" },
  payment_card: { label: "card", kind: "card" },
  identity: { label: "identity", kind: "identity" },
  address: { label: "address", kind: "identity" },
  name: { label: "identity", kind: "identity" },
  "secure note": { label: "note", kind: "note" },
  note: { label: "note", kind: "note" },
  "generic note": { label: "note", kind: "note" },
  "bank account": { label: "bank account", kind: "note" },
  bank: { label: "bank account", kind: "note" },
  "wireless router": { label: "Wi-Fi network", kind: "login" },
  "wi-fi password": { label: "Wi-Fi network", kind: "login" },
  wifi: { label: "Wi-Fi network", kind: "login" },
  server: { label: "server", kind: "login" },
  database: { label: "database", kind: "login" },
  "api credential": { label: "API credential", kind: "login" },
  "ssh key": { label: "SSH key", kind: "note" },
  "email account": { label: "e-mail account", kind: "login" },
  "instant messenger": { label: "instant messenger", kind: "login" },
  passport: { label: "passport", kind: "identity" },
  "driver's license": { label: "driver's licence", kind: "identity" },
  "driver license": { label: "driver's licence", kind: "identity" },
  license: { label: "driver's licence", kind: "identity" },
  "social security": { label: "social security number", kind: "identity" },
  "social security number": { label: "social security number", kind: "identity" },
  social_security: { label: "social security number", kind: "identity" },
  tax_number: { label: "tax number", kind: "identity" },
  "id card": { label: "ID card", kind: "identity" },
  membership: { label: "membership", kind: "note" },
  "reward program": { label: "reward programme", kind: "note" },
  "insurance policy": { label: "insurance policy", kind: "note" },
  "health insurance": { label: "health insurance", kind: "note" },
  "medical record": { label: "medical record", kind: "note" },
  "software license": { label: "software licence", kind: "note" },
  "outdoor license": { label: "outdoor licence", kind: "note" },
  "hunting license": { label: "hunting licence", kind: "note" },
  document: { label: "document", kind: "note" },
  email: { label: "e-mail address", kind: "identity" },
  number: { label: "phone number", kind: "identity" },
  phone: { label: "phone number", kind: "identity" },
  company: { label: "company", kind: "identity" },
  website: { label: "website", kind: "note" },
};

/** Whether a manager's item type is one named above. */
export const isKnownKind = (type: string) => Object.hasOwn(KINDS, type.trim().toLowerCase());

/** The vault kind for a source's item type; an unknown type is a note (its values kept as fields). */
export function sourceKind(type: string): SourceKind {
  const t = type.trim().toLowerCase();
  // Own keys only: a file's type "constructor" or "__proto__" is just an unknown type.
  return Object.hasOwn(KINDS, t) ? KINDS[t]! : { label: t || "note", kind: "note" };
}

const KIND_WORD: Record<EntryKind, string> = {
  login: "login",
  note: "secure note",
  card: "card",
  identity: "identity",
  ssh_key: "SSH key",
};

/** "an e-mail address", "a card", "an SSH key". */
const article = (w: string) => `${/^([aeiou]|SSH|API|ID\b)/i.test(w) ? "an" : "a"} ${w}`;

/**
 * What an item of this source kind carries into `credential()`: its vault kind, the source's name
 * for it (the preview counts by it) and the change said when the two differ.
 */
export const asSource = (source: SourceKind, fields: number) => ({
  kind: source.kind,
  ...(keptAs(source, fields).length ? { sourceKind: source.label } : {}),
  changes: keptAs(source, fields),
});

/** The change said when a source kind is kept as another kind (nothing when the kinds agree). */
export function keptAs(source: SourceKind, fields: number): string[] {
  if (["login", "password", "note", "card", "identity"].includes(source.label)) return [];
  return [
    `${article(source.label)} in the source: kept as ${article(KIND_WORD[source.kind])}${fields ? `, its details as ${fields === 1 ? "a named field" : `${fields} named fields`}` : ""}`,
  ];
}

/** Values that are secrets in any manager's words: kept as hidden fields. */
const SECRET =
  /password|passcode|\bpin\b|security code|cvv|cvc|secret|private key|passphrase|account number|iban|\bkey\b/i;

/** A named field of a value the item's kind has no slot for; secret-sounding names stay hidden. */
export const field = (name: string, value: string): CustomField => ({
  name,
  value,
  type: isSecretName(name) ? "hidden" : "text",
});

/** Whether a field's name says it holds a secret (a PIN, an account number, a key). */
export const isSecretName = (name: string) => SECRET.test(name);

/** Fields of a record's values not in `mapped`, named by `label` (a column's own name by default). */
export function otherFields(
  rec: Record<string, string>,
  mapped: Iterable<string>,
  label: (key: string) => string = humanize,
): CustomField[] {
  const skip = new Set(mapped);
  return Object.entries(rec)
    .filter(([k, v]) => !skip.has(k) && v.trim() !== "")
    .map(([k, v]) => field(label(k), v));
}

/** A column name as a person reads it: `place_of_issue` → "Place of issue". */
export function humanize(key: string): string {
  const words = key.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A card's brand from its number's leading digits, when the source does not name one. */
export function cardBrand(number: string): string {
  const n = number.replace(/[\s-]/g, "");
  if (/^4\d{12,18}$/.test(n)) return "Visa";
  if (/^(5[1-5]\d{14}|2(2[2-9]|[3-6]\d|7[01])\d{12}|2720\d{12})$/.test(n)) return "Mastercard";
  if (/^3[47]\d{13}$/.test(n)) return "American Express";
  if (/^(6011|65\d{2}|64[4-9]\d)\d{12,15}$/.test(n)) return "Discover";
  if (/^35(2[89]|[3-8]\d)\d{12,15}$/.test(n)) return "JCB";
  if (/^3(0[0-5]|[68]\d)\d{11,16}$/.test(n)) return "Diners Club";
  return "";
}

/** Only the details that hold something (an empty card or identity is no card or identity). */
export const filled = <T extends CardDetails | IdentityDetails>(
  d: Record<string, string | undefined>,
) => Object.fromEntries(Object.entries(d).filter(([, v]) => v && v.trim() !== "")) as T;

/** A full name as first (and middle) and last: "Ana María Ruiz" → first "Ana María", last "Ruiz". */
export function splitName(full: string): { first_name?: string; last_name?: string } {
  const parts = full.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return {};
  if (parts.length === 1) return { first_name: parts[0] };
  return { first_name: parts.slice(0, -1).join(" "), last_name: parts[parts.length - 1] };
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** A month given by name ("June", "jun") or number, as two digits; "" when it is neither. */
export function monthNumber(v: string): string {
  const t = v.trim().toLowerCase();
  if (/^\d{1,2}$/.test(t) && +t >= 1 && +t <= 12) return t.padStart(2, "0");
  const i = t.length >= 3 ? MONTHS.findIndex((m) => m.startsWith(t)) : -1;
  return i < 0 ? "" : String(i + 1).padStart(2, "0");
}

/**
 * A login kept for a server, a Wi-Fi network or a database: when its username or password came in
 * a field of the source's own name ("Wireless Network Password", "Admin Username"), the first such
 * field fills the empty slot, where the person and autofill look for it.
 */
export function promote(
  fields: CustomField[],
  slots: { username: string; password: string },
): { fields: CustomField[]; username: string; password: string } {
  let { username, password } = slots;
  // A router keeps an admin password beside the network's: the network's is the one people use.
  const network = password
    ? -1
    : fields.findIndex((f) => /(wireless|network|wi-?fi).*password$/i.test(f.name));
  if (network >= 0) {
    password = fields[network]!.value;
    fields = fields.filter((_, i) => i !== network);
  }
  const rest = fields.filter((f) => {
    if (!password && /(password|credential)$/i.test(f.name)) password = f.value;
    else if (!username && /(username|user name|login)$/i.test(f.name)) username = f.value;
    else return true;
    return false;
  });
  return { fields: rest, username, password };
}

const KIND_PLURAL: Record<EntryKind, [string, string]> = {
  login: ["login", "logins"],
  note: ["secure note", "secure notes"],
  card: ["card", "cards"],
  identity: ["identity", "identities"],
  ssh_key: ["SSH key", "SSH keys"],
};

/**
 * How many items of each kind a file brings, and of each source kind kept as another: "2 logins,
 * 1 card, 1 secure note; kept as the nearest kind: 1 bank account (as a secure note)".
 */
export function kindSummary(items: { kind: EntryKind; sourceKind?: string }[]): string {
  const byKind = new Map<EntryKind, number>();
  const bySource = new Map<string, { n: number; kind: EntryKind }>();
  for (const c of items) {
    byKind.set(c.kind, (byKind.get(c.kind) ?? 0) + 1);
    if (c.sourceKind) {
      const key = `${c.sourceKind}\u0000${c.kind}`;
      bySource.set(key, { n: (bySource.get(key)?.n ?? 0) + 1, kind: c.kind });
    }
  }
  const count = (n: number, [one, many]: [string, string]) => `${n} ${n === 1 ? one : many}`;
  const kinds = [...byKind].map(([k, n]) => count(n, KIND_PLURAL[k])).join(", ");
  const sources = [...bySource].map(
    ([key, { n, kind }]) =>
      `${n} ${key.split("\u0000")[0]} (as ${n === 1 ? article(KIND_PLURAL[kind][0]) : KIND_PLURAL[kind][1]})`,
  );
  return sources.length ? `${kinds}; kept as the nearest kind: ${sources.join(", ")}` : kinds;
}
