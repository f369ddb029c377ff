/**
 * LastPass CSV: url,username,password,totp,extra,name,grouping,fav. A secure note carries the url
 * `http://sn`; a note of one of LastPass's note types (a card, an address, a bank account …) writes
 * its form in `extra` as lines `Key:Value`, the first `NoteType:<type>`, the last `Notes:` followed
 * by the free text (which may run over several lines).
 */
import type { CardDetails, CustomField, IdentityDetails } from "../entry";
import { csvRecords } from "./csv";
import { requireHeaders } from "./headers";
import {
  asSource,
  cardBrand,
  field,
  filled,
  monthNumber,
  promote,
  sourceKind,
  splitName,
} from "./kinds";
import { credential, finish, truthy, type CredentialParts, type ParseOutput } from "./model";

/** A typed note's form: its type, its `Key:Value` pairs in order, and its free notes. */
export function noteForm(
  extra: string,
): { type: string; pairs: [string, string][]; notes: string } | null {
  const lines = extra.replace(/\r\n?/g, "\n").split("\n");
  const first = /^NoteType:(.*)$/.exec(lines[0] ?? "");
  if (!first) return null;
  const pairs: [string, string][] = [];
  let notes: string[] | null = null;
  for (const line of lines.slice(1)) {
    if (notes) notes.push(line);
    else if (line.startsWith("Notes:")) notes = [line.slice("Notes:".length)];
    else {
      const at = line.indexOf(":");
      if (at > 0) pairs.push([line.slice(0, at), line.slice(at + 1)]);
      // A line without a key continues the value above it (a multi-line address).
      else if (pairs.length) pairs[pairs.length - 1]![1] += `\n${line}`;
      else if (line.trim()) pairs.push(["Text", line]);
    }
  }
  return { type: first[1]!.trim(), pairs, notes: (notes ?? []).join("\n") };
}

/** LastPass writes a phone number as JSON: `{"num":"5550111","ext":"","cc3l":"GBR"}`. */
function phone(v: string): string {
  if (!v.startsWith("{")) return v;
  try {
    const o = JSON.parse(v) as Record<string, unknown>;
    if (typeof o.num !== "string") return v;
    const ext = typeof o.ext === "string" && o.ext ? ` ext. ${o.ext}` : "";
    const country = typeof o.cc3l === "string" && o.cc3l ? ` (${o.cc3l})` : "";
    return `${o.num}${ext}${country}`;
  } catch {
    return v;
  }
}

/** LastPass's own form keys that say nothing of the item (the form's language). */
const FORM_ONLY = new Set(["Language"]);

const CARD: Record<string, keyof CardDetails> = {
  "Name on Card": "cardholder",
  Type: "brand",
  Number: "number",
  "Security Code": "code",
};

const IDENTITY: Record<string, keyof IdentityDetails> = {
  Title: "title",
  "First Name": "first_name",
  "Middle Name": "middle_name",
  "Last Name": "last_name",
  Username: "username",
  Company: "company",
  "Address 1": "address1",
  "Address 2": "address2",
  "City / Town": "city",
  State: "state",
  "Zip / Postal Code": "postal_code",
  Country: "country",
  "Email Address": "email",
  Phone: "phone",
};

/** The identity slot a document's number goes in, by note type. */
const DOCUMENT_NUMBER: Record<string, keyof IdentityDetails> = {
  passport: "passport",
  "driver's license": "license",
  "social security": "ssn",
};

const LOGIN_TYPES = new Set([
  "server",
  "database",
  "email account",
  "instant messenger",
  "wi-fi password",
]);

/** A typed note as the nearest kind: card, identity, login (servers, databases …) or note. */
function typedNote(form: NonNullable<ReturnType<typeof noteForm>>): CredentialParts {
  const source = sourceKind(form.type);
  const type = form.type.toLowerCase();
  const fields: CustomField[] = [];
  const card: Record<string, string> = {};
  const identity: Record<string, string> = {};
  let username = "";
  let password = "";
  for (const [key, raw] of form.pairs) {
    const value = /phone|fax/i.test(key) ? phone(raw) : raw;
    // LastPass writes an empty date as "," or ",,".
    if (FORM_ONLY.has(key) || value.replace(/[,\s]/g, "") === "") continue;
    if (type === "credit card" && CARD[key]) card[CARD[key]] = value;
    else if (type === "credit card" && key === "Expiration Date") {
      // LastPass writes "June,2027".
      const [m = "", y = ""] = value.split(",");
      card.exp_month = monthNumber(m);
      card.exp_year = y.trim();
      if (!card.exp_month || !card.exp_year) fields.push(field(key, value));
    } else if (type === "address" && IDENTITY[key]) identity[IDENTITY[key]] = value;
    else if (DOCUMENT_NUMBER[type] && key === "Number") identity[DOCUMENT_NUMBER[type]] = value;
    else if (DOCUMENT_NUMBER[type] && key === "Name") Object.assign(identity, splitName(value));
    else if (LOGIN_TYPES.has(type) && key === "Username" && !username) username = value;
    else if (LOGIN_TYPES.has(type) && key === "Password" && !password) password = value;
    else fields.push(field(key, value));
  }
  if (source.kind === "card" && card.number && !card.brand) card.brand = cardBrand(card.number);
  const login = LOGIN_TYPES.has(type);
  const slots = login ? promote(fields, { username, password }) : { fields, username, password };
  return {
    ...asSource(login ? { ...source, kind: "login" } : source, slots.fields.length),
    username: slots.username,
    password: slots.password,
    notes: form.notes,
    fields: slots.fields,
    card: source.kind === "card" ? filled<CardDetails>(card) : undefined,
    identity: source.kind === "identity" ? filled<IdentityDetails>(identity) : undefined,
  };
}

/** A typed note's row rarely has a username or password of its own; when it does, it is kept. */
function withRowLogin(parts: CredentialParts, r: Record<string, string>): CredentialParts {
  const fields = [...(parts.fields ?? [])];
  let { username = "", password = "" } = parts;
  if (r.username && r.username !== username) {
    if (parts.kind === "login" && !username) username = r.username;
    else fields.push(field("Username", r.username));
  }
  if (r.password && r.password !== password) {
    if (parts.kind === "login" && !password) password = r.password;
    else fields.push({ name: "Password", value: r.password, type: "hidden" });
  }
  return { ...parts, username, password, fields };
}

/**
 * source_mgr_2 (LastPass) CSV. A secure note of a known type becomes that kind (a card, an
 * identity for an address or a document, a login for a server or database), any other a note with
 * its form's values as named fields; a plain secure note stays a note with its text.
 */
export function parseMgr2Csv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(
    headers,
    ["url", "username", "password", "extra", "name", "grouping"],
    "LastPass CSV",
  );
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const r of records) {
    const note = r.url === "http://sn";
    const form = note ? noteForm(r.extra ?? "") : null;
    const common = {
      name: r.name,
      folder: r.grouping,
      favorite: truthy(r.fav ?? ""),
      totp: r.totp,
    };
    out.credentials.push(
      credential(
        form
          ? { ...common, ...withRowLogin(typedNote(form), r) }
          : {
              ...common,
              kind: note ? "note" : "login",
              url: note ? null : r.url,
              username: r.username,
              password: r.password,
              notes: r.extra,
            },
      ),
    );
  }
  return finish(out);
}
