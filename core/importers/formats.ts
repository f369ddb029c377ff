/**
 * CSV exports of browsers and of the managers people leave, each read by its header row: rows that
 * hold nothing are skipped with the reason (finish), and what cannot be kept as it was is said.
 */
import type { CustomField } from "../entry";
import { csvRecords } from "./csv";
import { pick, requireHeaders } from "./headers";
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

/**
 * source_mgr_2 (LastPass) CSV: url,username,password,totp,extra,name,grouping,fav. Secure notes
 * carry the url `http://sn`: they become notes.
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
    out.credentials.push(
      credential({
        name: r.name,
        kind: note ? "note" : "login",
        url: note ? null : r.url,
        username: r.username,
        password: r.password,
        notes: r.extra,
        totp: r.totp,
        folder: r.grouping,
        favorite: truthy(r.fav ?? ""),
      }),
    );
  }
  return finish(out);
}

/**
 * source_mgr_3 (1Password) CSV: 1Password 8's Title,Url,Username,Password,OTPAuth,Favorite,
 * Archived,Tags,Notes, and 1Password 7's title,website,username,password,notes (which escapes
 * quotes with a backslash: csv.ts reads both). Archived items are kept, tagged "archived".
 */
export function parseMgr3Csv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(headers, ["title", "username", "password"], "1Password CSV");
  if (!headers.includes("url") && !headers.includes("website"))
    throw new ImportFormatError("Not a 1Password CSV export: missing column(s) url");
  const out: ParseOutput = { credentials: [], skipped: [] };
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

/** Dashlane's files other than credentials.csv, by a column only each has. */
const DASHLANE_OTHER: [string, string][] = [
  ["date_of_birth", "personal info"],
  ["place_of_issue", "IDs"],
];

/**
 * source_mgr_4 (Dashlane): credentials.csv (username,username2,username3,title,password,note,url,
 * category,otpSecret or, in newer exports, otpUrl), securenotes.csv (title,note) and payments.csv
 * (cards). Its other files are refused with a message that names them.
 */
export function parseMgr4Csv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  for (const [col, what] of DASHLANE_OTHER) {
    if (headers.includes(col))
      throw new ImportFormatError(
        `This is Dashlane's ${what} file, which holds no logins. Import Dashlane's credentials.csv (and securenotes.csv, payments.csv) from the same export.`,
      );
  }
  const out: ParseOutput = { credentials: [], skipped: [] };
  if (headers.includes("cc_number")) {
    for (const r of records) {
      const card = {
        cardholder: r.account_holder ?? "",
        number: r.cc_number ?? "",
        code: r.code ?? "",
        exp_month: r.expiration_month ?? "",
        exp_year: r.expiration_year ?? "",
      };
      if (!card.number && r.account_number) {
        out.skipped.push({
          name: r.account_name || "Bank account",
          reason: "a bank account: this vault holds cards, notes, identities and logins",
        });
        continue;
      }
      out.credentials.push(
        credential({
          name: r.account_name || "Card",
          kind: "card",
          card: Object.fromEntries(Object.entries(card).filter(([, v]) => v)),
          notes: r.note ?? "",
        }),
      );
    }
    return finish(out);
  }
  if (!headers.includes("username") && headers.includes("title") && headers.includes("note")) {
    for (const r of records)
      out.credentials.push(
        credential({ name: r.title, kind: "note", notes: r.note, folder: r.category }),
      );
    return finish(out);
  }
  requireHeaders(headers, ["username", "title", "password", "url"], "Dashlane credentials");
  for (const r of records) {
    const fields: CustomField[] = [r.username2, r.username3]
      .filter(Boolean)
      .map((u) => ({ name: "Other username", value: u, type: "text" }));
    out.credentials.push(
      credential({
        name: r.title,
        url: r.url,
        username: r.username,
        password: r.password,
        notes: r.note ?? "",
        fields,
        totp: pick(r, "otpurl", "otpsecret"),
        folder: r.category,
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

/**
 * NordPass CSV: name,url,additional_urls,username,password,note,cardholdername,cardnumber,cvc,
 * expirydate,zipcode,folder,full_name,phone_number,email,address1,address2,city,country,state,type,
 * custom_fields. Rows of type "folder" only declare folders; the items name theirs.
 */
export function parseNordPassCsv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(
    headers,
    ["name", "url", "username", "password", "note", "folder", "type"],
    "NordPass CSV",
  );
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const r of records) {
    const type = (r.type ?? "").toLowerCase();
    if (type === "folder") continue;
    const fields = jsonCell(r.custom_fields ?? "").flatMap((f): CustomField[] => {
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
    const kind =
      type === "credit_card"
        ? "card"
        : type === "identity"
          ? "identity"
          : type === "note"
            ? "note"
            : "login";
    out.credentials.push(
      credential({
        name: r.name,
        kind,
        url: r.url,
        urls,
        username: r.username,
        password: r.password,
        notes: r.note,
        folder: r.folder,
        fields,
        card:
          kind === "card"
            ? Object.fromEntries(
                Object.entries({
                  cardholder: r.cardholdername,
                  number: r.cardnumber,
                  code: r.cvc,
                  exp_month: month ?? "",
                  exp_year: year ?? "",
                }).filter(([, v]) => v),
              )
            : undefined,
        identity:
          kind === "identity"
            ? Object.fromEntries(
                Object.entries({
                  first_name: r.full_name,
                  email: r.email,
                  phone: r.phone_number,
                  address1: r.address1,
                  address2: r.address2,
                  city: r.city,
                  state: r.state,
                  country: r.country,
                  postal_code: r.zipcode,
                }).filter(([, v]) => v),
              )
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
