/**
 * source_mgr_3 (1Password) CSV: 1Password 8's Title,Url,Username,Password,OTPAuth,Favorite,
 * Archived,Tags,Notes; 1Password 7's title,website,username,password,notes (which escapes quotes
 * with a backslash: csv.ts reads both); and 1Password 7's "all fields" CSVs, whose columns are
 * each item's own field names: the Mac file names every item's kind in `Type` ("Login", "Credit
 * Card", "Identity", "Secure Note", "Bank Account", "Wireless Router", "Server" …), the Windows
 * files (one per kind) do not, and there `type` is a card's brand. Archived items are kept, tagged
 * "archived".
 */
import type { CardDetails, CustomField, IdentityDetails } from "../entry";
import { csvRecords } from "./csv";
import { pick, requireHeaders } from "./headers";
import {
  asSource,
  cardBrand,
  field,
  filled,
  isKnownKind,
  monthNumber,
  promote,
  sourceKind,
} from "./kinds";
import {
  credential,
  finish,
  ImportFormatError,
  splitTags,
  truthy,
  type ParseOutput,
} from "./model";

/** 1Password 7's own bookkeeping columns: its summary line, strength score, autofill scope, id. */
const METADATA = new Set(["ainfo", "autosubmit", "ps", "scope", "uuid"]);

/** Whether a header row is a 1Password 7 "all fields" export rather than the fixed-column ones. */
export function isOnePasswordFullCsv(h: Set<string>): boolean {
  if (!h.has("title")) return false;
  if (h.has("notesplain") || h.has("ainfo") || h.has("uuid")) return true;
  return (
    h.has("type") &&
    ["urls", "cardholder name", "expiry date", "verification number", "first name", "notes"].some(
      (c) => h.has(c),
    )
  );
}

const CARD: Record<string, keyof CardDetails> = {
  "cardholder name": "cardholder",
  number: "number",
  "card number": "number",
  "verification number": "code",
};

const IDENTITY: Record<string, keyof IdentityDetails> = {
  "first name": "first_name",
  initial: "middle_name",
  "last name": "last_name",
  username: "username",
  company: "company",
  email: "email",
  "default phone": "phone",
  address: "address1",
  city: "city",
  state: "state",
  zip: "postal_code",
  "postal code": "postal_code",
  country: "country",
};

/** An expiry as 1Password 7 writes it: "MM/YYYY" (Mac) or "YYYYMM" (Windows). */
function expiry(v: string): { exp_month?: string; exp_year?: string } | null {
  const t = v.trim();
  let m = /^(\d{1,2})\/(\d{4})$/.exec(t);
  if (m) return { exp_month: monthNumber(m[1]!), exp_year: m[2] };
  m = /^(\d{4})(\d{2})$/.exec(t);
  if (m) return { exp_month: monthNumber(m[2]!), exp_year: m[1] };
  return null;
}

/** A creation or modification time, which 1Password 7 writes in epoch seconds. */
const when = (v: string) =>
  /^\d{9,11}$/.test(v.trim()) ? new Date(+v * 1000).toISOString().replace(".000Z", "Z") : v;

/** One row of an "all fields" file as the nearest kind, every other column a named field. */
function fullRow(r: Record<string, string>, headers: string[], names: string[]) {
  const t = (r.type ?? "").trim();
  const cardish = !!pick(r, "number", "card number") && !!r["expiry date"];
  // Windows' card file writes the card's brand in `type`; the Mac file, the item's kind.
  const isItemType = t !== "" && (isKnownKind(t) || !cardish);
  const source = isItemType
    ? sourceKind(t)
    : cardish
      ? sourceKind("credit card")
      : r["first name"] || r["last name"]
        ? sourceKind("identity")
        : r.username || r.password || pick(r, "urls", "url", "website")
          ? sourceKind("login")
          : sourceKind("secure note");
  const card: Record<string, string> = {};
  const identity: Record<string, string> = {};
  let fields: CustomField[] = [];
  const used = new Set([
    "title",
    "notesplain",
    "notes",
    "tags",
    "urls",
    "url",
    "website",
    ...METADATA,
  ]);
  if (isItemType) used.add("type");
  let username = "";
  let password = "";
  let totp = "";
  for (const [i, h] of headers.entries()) {
    const v = r[h] ?? "";
    if (used.has(h) || v.trim() === "") continue;
    if (source.kind === "card" && CARD[h] && !card[CARD[h]]) card[CARD[h]] = v;
    else if (source.kind === "card" && h === "expiry date" && expiry(v))
      Object.assign(card, expiry(v));
    else if (source.kind === "card" && h === "type") card.brand = v;
    else if (source.kind === "identity" && IDENTITY[h] && !identity[IDENTITY[h]])
      identity[IDENTITY[h]] = v;
    else if (source.kind === "login" && h === "username" && !username) username = v;
    else if (source.kind === "login" && h === "password" && !password) password = v;
    else if (/^(otp|otpauth|one-time password)$/.test(h) && !totp) totp = v;
    else if (h === "created date" || h === "modified date")
      fields.push({ name: `1Password ${names[i]}`, value: when(v), type: "text" });
    else fields.push(field(names[i]!.replace(/^section:\s*/i, ""), v));
  }
  if (source.kind === "card" && card.number && !card.brand) card.brand = cardBrand(card.number);
  // Every address the row names (`urls` is one per line; a file may have `url` or `website` too).
  const addresses = ["urls", "url", "website"]
    .flatMap((h) => (r[h] ?? "").split(/\r?\n/))
    .map((u) => u.trim())
    .filter(Boolean);
  if (source.kind !== "login" && addresses.length)
    fields.push({ name: "URL", value: addresses.join("\n"), type: "text" });
  if (source.kind === "login")
    ({ fields, username, password } = promote(fields, { username, password }));
  return credential({
    name: r.title,
    ...asSource(source, fields.length),
    urls: source.kind === "login" ? addresses : [],
    username,
    password,
    totp,
    notes: [r.notesplain, r.notes].filter(Boolean).join("\n"),
    tags: splitTags(r.tags ?? "", /[;,]/),
    fields,
    card: source.kind === "card" ? filled<CardDetails>(card) : undefined,
    identity: source.kind === "identity" ? filled<IdentityDetails>(identity) : undefined,
  });
}

export function parseMgr3Csv(text: string): ParseOutput {
  const { headers, names, records } = csvRecords(text);
  const out: ParseOutput = { credentials: [], skipped: [] };
  if (isOnePasswordFullCsv(new Set(headers))) {
    for (const r of records) out.credentials.push(fullRow(r, headers, names));
    return finish(out);
  }
  requireHeaders(headers, ["title", "username", "password"], "1Password CSV");
  if (!headers.includes("url") && !headers.includes("website"))
    throw new ImportFormatError("Not a 1Password CSV export: missing column(s) url");
  for (const r of records) {
    const archived = truthy(r.archived ?? "");
    const tags = splitTags(r.tags ?? "", /[;,]/);
    out.credentials.push(
      credential({
        name: r.title,
        url: pick(r, "url", "website"),
        username: r.username,
        password: r.password,
        notes: pick(r, "notes", "notesplain"),
        totp: pick(r, "otpauth"),
        tags: archived ? [...tags, "archived"] : tags,
        favorite: truthy(r.favorite ?? ""),
        changes: archived ? ['archived in the source: tagged "archived"'] : [],
      }),
    );
  }
  return finish(out);
}
