/**
 * CSV exports of browsers, NordPass, KeePassXC and generic files, each read by its header row
 * (LastPass, 1Password and Dashlane have files of their own): rows that
 * hold nothing are skipped with the reason (finish), and what cannot be kept as it was is said.
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
import {
  clean,
  credential,
  finish,
  ImportFormatError,
  readJson,
  splitTags,
  truthy,
  type ParseOutput,
} from "./model";

const FIREFOX_ACCOUNTS = /^chrome:\/\/FirefoxAccounts/i;

/**
 * Browser password exports: name,url,username,password[,note] (Chrome, Edge);
 * url,username,password,httpRealm,formActionOrigin,guid,… (Firefox); Title,URL,Username,Password,
 * Notes,OTPAuth (Safari) and the older Safari header without Notes (and at first without OTPAuth).
 * Firefox lists its own account (a chrome:// address holding sync keys): never a login to import.
 */
export function parseBrowserCsv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(headers, ["url", "username", "password"], "browser");
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const r of records) {
    if (FIREFOX_ACCOUNTS.test(r.url ?? "")) {
      out.skipped.push({
        name: "Firefox Accounts",
        reason: "Firefox's own sync account (its keys, not a website password)",
      });
      continue;
    }
    out.credentials.push(
      credential({
        name: pick(r, "name", "title"),
        url: r.url,
        username: r.username,
        password: r.password,
        notes: pick(r, "note", "notes"),
        totp: pick(r, "otpauth"),
      }),
    );
  }
  return finish(out);
}

/** NordPass's JSON cells: additional URLs and custom fields, read leniently (a cell that is not JSON is kept as text). */
function jsonCell(v: string): unknown[] {
  if (!v.trim()) return [];
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [v];
  }
}

/** The kind of an older NordPass row, whose file has no `type` column, by what it holds. */
function nordPassKind(r: Record<string, string>): string {
  if (r.cardnumber || r.cvc || r.cardholdername) return "credit_card";
  if (r.username || r.password || r.url) return "password";
  if (r.full_name || r.address1 || r.phone_number || r.email || r.city) return "identity";
  return "note";
}

/**
 * NordPass CSV: name,url,additional_urls,username,password,note,cardholdername,cardnumber,cvc,
 * expirydate,zipcode,folder,full_name,phone_number,email,address1,address2,city,country,state,type,
 * custom_fields. Rows of type "folder" only declare folders; the items name theirs. Older files
 * have no `type` (nor `additional_urls`, `custom_fields`): a row's kind is then judged by what it
 * holds.
 */
export function parseNordPassCsv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(
    headers,
    ["name", "url", "username", "password", "note", "folder"],
    "NordPass CSV",
  );
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const r of records) {
    const type = (r.type || nordPassKind(r)).toLowerCase();
    if (type === "folder") continue;
    const custom = jsonCell(r.custom_fields ?? "").flatMap((f): CustomField[] => {
      if (typeof f === "string") return [{ name: "Field", value: f, type: "text" }];
      const o = f as Record<string, unknown>;
      return [
        {
          name: clean(o.label),
          value: clean(o.value),
          type: o.type === "hidden" ? "hidden" : "text",
        },
      ];
    });
    const urls = jsonCell(r.additional_urls ?? "").map((u) => clean(u));
    const [month, year] = (r.expirydate ?? "").split("/");
    const source = sourceKind(type);
    const kind = source.kind;
    // What the kind has no slot for is kept as a field (a card's billing zip, a login's address).
    const slots =
      kind === "card"
        ? ["cardholdername", "cardnumber", "cvc", "expirydate"]
        : kind === "identity"
          ? [
              "full_name",
              "email",
              "phone_number",
              "address1",
              "address2",
              "city",
              "state",
              "country",
              "zipcode",
            ]
          : [];
    const rest = otherFields(r, [
      "name",
      "url",
      "additional_urls",
      "username",
      "password",
      "note",
      "folder",
      "type",
      "custom_fields",
      ...slots,
    ]);
    out.credentials.push(
      credential({
        name: r.name,
        ...asSource(source, rest.length),
        url: r.url,
        urls,
        username: r.username,
        password: r.password,
        notes: r.note,
        folder: r.folder,
        fields: [...custom, ...rest],
        card:
          kind === "card"
            ? filled<CardDetails>({
                cardholder: r.cardholdername,
                brand: cardBrand(r.cardnumber ?? ""),
                number: r.cardnumber,
                code: r.cvc,
                exp_month: monthNumber(month ?? ""),
                exp_year: year,
              })
            : undefined,
        identity:
          kind === "identity"
            ? filled<IdentityDetails>({
                ...splitName(r.full_name ?? ""),
                email: r.email,
                phone: r.phone_number,
                address1: r.address1,
                address2: r.address2,
                city: r.city,
                state: r.state,
                country: r.country,
                postal_code: r.zipcode,
              })
            : undefined,
      }),
    );
  }
  return finish(out);
}

/** KeePassXC CSV: "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created". */
export function parseKeePassXcCsv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(
    headers,
    ["group", "title", "username", "password", "url", "notes"],
    "KeePassXC CSV",
  );
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const r of records) {
    // The database's root group is every entry's first path step: it names no folder.
    const folder = (r.group ?? "").split("/").slice(1).join("/");
    out.credentials.push(
      credential({
        name: r.title,
        url: r.url,
        username: r.username,
        password: r.password,
        notes: r.notes,
        totp: r.totp,
        folder,
      }),
    );
  }
  return finish(out);
}

/** Generic CSV: the headers name, url, username, password; notes, totp, tags and folder when present. */
export function parseGenericCsv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(headers, ["name", "url", "username", "password"], "generic CSV");
  return finish({
    credentials: records.map((r) =>
      credential({
        name: r.name,
        url: r.url,
        username: r.username,
        password: r.password,
        notes: pick(r, "notes", "note"),
        totp: pick(r, "totp", "otp"),
        tags: splitTags(pick(r, "tags"), /[;,]/),
        folder: pick(r, "folder", "group"),
      }),
    ),
    skipped: [],
  });
}

/** Generic JSON: an array of credential objects; common key spellings are accepted. */
export function parseGenericJson(text: string): ParseOutput {
  const doc = readJson(text, "JSON");
  if (!Array.isArray(doc))
    throw new ImportFormatError("Generic JSON must be an array of credential objects");
  const out: ParseOutput = { credentials: [], skipped: [] };
  doc.forEach((raw, idx) => {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      out.skipped.push({ name: `Item ${idx + 1}`, reason: "not an object" });
      return;
    }
    const o = raw as Record<string, unknown>;
    const get = (...keys: string[]) =>
      keys.map((k) => o[k]).find((v) => typeof v === "string" && v !== "") as string | undefined;
    const tags = Array.isArray(o.tags)
      ? o.tags.filter((t): t is string => typeof t === "string")
      : splitTags(get("tags") ?? "", /[;,]/);
    out.credentials.push(
      credential({
        name: get("name", "title") ?? `Item ${idx + 1}`,
        url: get("url", "uri", "website", "login_uri"),
        username: get("username", "login", "email", "user"),
        password: get("password", "pass"),
        notes: get("notes", "note", "extra"),
        totp: get("totp", "otp", "otpauth"),
        tags,
        folder: get("folder", "group", "category"),
        favorite: o.favorite === true,
      }),
    );
  });
  return finish(out);
}
