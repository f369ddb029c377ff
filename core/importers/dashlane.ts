/**
 * source_mgr_4 (Dashlane) CSV. Dashlane exports a zip of five CSV files, each read here alone or
 * together from the zip: credentials.csv (username,username2,username3,title,password,note,url,
 * category,otpSecret, or otpUrl in newer exports), securenotes.csv (title,note), payments.csv
 * (type,account_name,account_holder,cc_number,code,expiration_month,expiration_year,
 * routing_number,account_number,country,issuing_bank), ids.csv (type,number,name,issue_date,
 * expiration_date,place_of_issue,state) and personalInfo.csv (type,title,first_name,middle_name,
 * last_name,login,date_of_birth,place_of_birth,email,email_type,item_name,phone_number,address,
 * country,state,city,zip,address_recipient,… ,job_title,url).
 */
import type { CardDetails, CustomField, IdentityDetails } from "../entry";
import { csvRecords } from "./csv";
import { pick, requireHeaders } from "./headers";
import {
  asSource,
  cardBrand,
  filled,
  monthNumber,
  otherFields,
  sourceKind,
  splitName,
} from "./kinds";
import { credential, finish, ImportFormatError, type ParseOutput } from "./model";

type Rec = Record<string, string>;

/** payments.csv: a card, or a bank account kept as a note with its details as fields. */
function payment(r: Rec) {
  const bank = r.type === "bank" || (!r.cc_number && !!(r.account_number || r.routing_number));
  const name = pick(r, "name", "account_name") || (bank ? "Bank account" : "Card");
  if (bank) {
    const fields = otherFields(r, ["type", "name", "note", ...(r.name ? [] : ["account_name"])]);
    return credential({
      name,
      ...asSource(sourceKind("bank account"), fields.length),
      fields,
      notes: r.note ?? "",
    });
  }
  const number = r.cc_number ?? "";
  const card = filled<CardDetails>({
    cardholder: pick(r, "account_holder", "account_name"),
    brand: cardBrand(number),
    number,
    code: r.code,
    exp_month: monthNumber(r.expiration_month ?? ""),
    exp_year: r.expiration_year,
  });
  const mapped = [
    "type",
    "name",
    "note",
    "cc_number",
    "code",
    "expiration_month",
    "expiration_year",
  ];
  mapped.push(r.account_holder ? "account_holder" : "account_name");
  if (!r.name && !r.account_holder) mapped.push("account_name");
  return credential({
    name,
    kind: "card",
    card,
    fields: otherFields(r, mapped),
    notes: r.note ?? "",
  });
}

/** Where an ID's number goes in an identity, by Dashlane's type. */
const ID_SLOT: Record<string, keyof IdentityDetails> = {
  passport: "passport",
  license: "license",
  social_security: "ssn",
};

/** ids.csv: an identity with the holder's name and the document's number in its slot. */
function idDocument(r: Rec) {
  const source = sourceKind(r.type === "card" ? "id card" : (r.type ?? ""));
  const slot = ID_SLOT[r.type ?? ""];
  const fields: CustomField[] = otherFields(
    r,
    ["type", "name", ...(slot ? ["number"] : [])],
    (k) =>
      k === "number"
        ? `${source.label.charAt(0).toUpperCase()}${source.label.slice(1)} number`
        : humanizeId(k),
  );
  return credential({
    name: [r.name, source.label].filter(Boolean).join(" — "),
    ...asSource({ ...source, kind: "identity" }, fields.length),
    identity: filled<IdentityDetails>({
      ...splitName(r.name ?? ""),
      ...(slot ? { [slot]: r.number } : {}),
    }),
    fields,
  });
}

const humanizeId = (k: string) =>
  ({
    issue_date: "Issue date",
    expiration_date: "Expiry date",
    place_of_issue: "Place of issue",
    state: "State",
  })[k] ?? k;

/** personalInfo.csv's columns with an identity slot. */
const PERSONAL: Record<string, keyof IdentityDetails> = {
  title: "title",
  first_name: "first_name",
  middle_name: "middle_name",
  last_name: "last_name",
  login: "username",
  email: "email",
  phone_number: "phone",
  address: "address1",
  city: "city",
  state: "state",
  zip: "postal_code",
  country: "country",
};

/**
 * personalInfo.csv: each row is one piece of a profile (a name, an e-mail address, a phone number,
 * an address, a company, a website): an identity holding it, its other columns as fields.
 */
function personal(r: Rec) {
  const source = sourceKind(r.type ?? "");
  const asIdentity = source.kind === "identity";
  const fields = otherFields(
    r,
    asIdentity ? ["type", "item_name", ...Object.keys(PERSONAL)] : ["type", "item_name"],
  );
  const fullName = [r.title, r.first_name, r.middle_name, r.last_name].filter(Boolean).join(" ");
  return credential({
    name: r.item_name || fullName || source.label,
    ...asSource(source, fields.length),
    identity: asIdentity
      ? filled<IdentityDetails>(
          Object.fromEntries(Object.entries(PERSONAL).map(([col, slot]) => [slot, r[col]])),
        )
      : undefined,
    fields,
  });
}

/** Which of Dashlane's files this is, by its header row. */
export function dashlaneFile(
  headers: string[],
): "credentials" | "notes" | "payments" | "ids" | "personal" | null {
  const h = new Set(headers);
  if (h.has("cc_number") || h.has("account_number") || h.has("issuing_bank")) return "payments";
  if (h.has("place_of_issue") || (h.has("number") && h.has("issue_date"))) return "ids";
  if (h.has("date_of_birth") || h.has("item_name")) return "personal";
  if (h.has("username") && h.has("title") && h.has("password")) return "credentials";
  if (h.has("title") && h.has("note") && !h.has("password")) return "notes";
  return null;
}

export function parseMgr4Csv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  const file = dashlaneFile(headers);
  const out: ParseOutput = { credentials: [], skipped: [] };
  if (file === "payments") out.credentials = records.map(payment);
  else if (file === "ids") out.credentials = records.map(idDocument);
  else if (file === "personal") out.credentials = records.map(personal);
  else if (file === "notes")
    out.credentials = records.map((r) =>
      credential({
        name: r.title,
        kind: "note",
        notes: r.note,
        folder: r.category,
        fields: otherFields(r, ["title", "note", "category"]),
      }),
    );
  else {
    requireHeaders(headers, ["username", "title", "password", "url"], "Dashlane credentials");
    for (const r of records) {
      const fields: CustomField[] = [r.username2, r.username3]
        .filter(Boolean)
        .map((u) => ({ name: "Other username", value: u!, type: "text" }));
      out.credentials.push(
        credential({
          name: r.title,
          url: r.url,
          username: r.username,
          password: r.password,
          notes: r.note ?? "",
          fields: [
            ...fields,
            ...otherFields(r, [
              "username",
              "username2",
              "username3",
              "title",
              "password",
              "note",
              "url",
              "category",
              "otpurl",
              "otpsecret",
            ]),
          ],
          totp: pick(r, "otpurl", "otpsecret"),
          folder: r.category,
        }),
      );
    }
  }
  return finish(out);
}

/** Dashlane's files in its zip export, in the order a person would read them. */
const ZIP_ORDER = ["credentials", "securenotes", "payments", "ids", "personalinfo"];

/** Whether a zip's member names are Dashlane's export. */
export const isDashlaneZip = (names: string[]) =>
  names.some((n) => /(^|\/)credentials\.csv$/i.test(n)) ||
  names.filter((n) => ZIP_ORDER.some((f) => new RegExp(`(^|/)${f}\\.csv$`, "i").test(n))).length >=
    2;

/** Every CSV file of Dashlane's zip read and put together; a file that cannot be read names itself. */
export function parseDashlaneZip(files: Map<string, string>): ParseOutput {
  const out: ParseOutput = { credentials: [], skipped: [] };
  const rank = (n: string) => {
    const base = n
      .split("/")
      .pop()!
      .toLowerCase()
      .replace(/\.csv$/, "");
    const i = ZIP_ORDER.indexOf(base);
    return i < 0 ? ZIP_ORDER.length : i;
  };
  const csvs = [...files.keys()].filter((n) => /\.csv$/i.test(n)).sort((a, b) => rank(a) - rank(b));
  for (const name of csvs) {
    const text = files.get(name)!;
    if (!text.replace(/^\uFEFF/, "").trim()) continue;
    try {
      const part = parseMgr4Csv(text);
      out.credentials.push(...part.credentials);
      out.skipped.push(...part.skipped);
    } catch (err) {
      if (!(err instanceof ImportFormatError)) throw err;
      out.skipped.push({ name, reason: `not read: ${err.message}` });
    }
  }
  return out;
}
