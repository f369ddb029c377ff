import { normalizeHost } from "../../../src/kernel/hostname";
import { csvRecords, ImportFormatError } from "./csv";

/** One credential read from a source file, in plaintext, ready for the client to encrypt (V3). */
export type ImportedCredential = {
  name: string;
  url: string | null;
  /** Hostname of `url`, lower case without `www.`, as the vault stores `website`. */
  website: string | null;
  username: string;
  password: string;
  notes: string;
  /** An otpauth:// URI or a base32 secret, as the source gave it. */
  totp: string | null;
  tags: string[];
  folder: string | null;
  favorite: boolean;
};

export type ParseOutput = { credentials: ImportedCredential[]; skipped: string[] };

export function hostnameOf(url: string | null): string | null {
  const host = normalizeHost(url);
  return host && (host.includes(".") || host === "localhost") ? host : null;
}

const clean = (v: unknown) => (typeof v === "string" ? v.trim() : v == null ? "" : String(v).trim());
const truthy = (v: string) => ["1", "true", "yes", "y"].includes(v.trim().toLowerCase());
const splitTags = (v: string, sep: RegExp) =>
  v
    .split(sep)
    .map((t) => t.trim())
    .filter(Boolean);

function credential(parts: Partial<ImportedCredential> & { url?: string | null }): ImportedCredential {
  const url = clean(parts.url) || null;
  const website = hostnameOf(url);
  return {
    name: clean(parts.name) || website || clean(parts.username) || "Untitled",
    url,
    website,
    username: clean(parts.username),
    password: typeof parts.password === "string" ? parts.password : "",
    notes: typeof parts.notes === "string" ? parts.notes : "",
    totp: clean(parts.totp) || null,
    tags: parts.tags ?? [],
    folder: clean(parts.folder) || null,
    favorite: parts.favorite ?? false,
  };
}

/** First non-empty value among several header spellings. */
const pick = (rec: Record<string, string>, ...names: string[]) => names.map((n) => rec[n]).find((v) => v !== undefined && v !== "") ?? "";

function requireHeaders(headers: string[], needed: string[], label: string) {
  const missing = needed.filter((h) => !headers.includes(h));
  if (missing.length > 0) throw new ImportFormatError(`Not a ${label} export: missing column(s) ${missing.join(", ")}`);
}

/**
 * Browser password exports. The three common shapes: name,url,username,password[,note];
 * url,username,password,httpRealm,formActionOrigin,guid,…; Title,URL,Username,Password,Notes,OTPAuth.
 */
export function parseBrowserCsv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(headers, ["url", "username", "password"], "browser");
  return {
    credentials: records.map((r) =>
      credential({ name: pick(r, "name", "title"), url: r.url, username: r.username, password: r.password, notes: pick(r, "note", "notes"), totp: pick(r, "otpauth") }),
    ),
    skipped: [],
  };
}

type Mgr1Item = {
  type?: number;
  name?: string;
  notes?: string | null;
  favorite?: boolean;
  folderId?: string | null;
  fields?: { name?: string; value?: string }[] | null;
  login?: { username?: string | null; password?: string | null; totp?: string | null; uris?: { uri?: string | null }[] | null } | null;
};

const MGR1_LOGIN = 1;

/** source_mgr_1 JSON: `{encrypted: false, folders: [{id, name}], items: [{type, name, login: {…}, …}]}`. */
export function parseMgr1Json(text: string): ParseOutput {
  let doc: { encrypted?: boolean; folders?: { id: string; name: string }[]; items?: Mgr1Item[] };
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    throw new ImportFormatError("The file is not valid JSON");
  }
  if (doc.encrypted) throw new ImportFormatError("This export is password-protected; export it unencrypted to import it");
  if (!Array.isArray(doc.items)) throw new ImportFormatError("Not a source_mgr_1 JSON export: no items array");
  const folders = new Map((doc.folders ?? []).map((f) => [f.id, f.name]));
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const item of doc.items) {
    if (item.type !== MGR1_LOGIN || !item.login) {
      out.skipped.push(`${item.name ?? "Unnamed item"}: not a login`);
      continue;
    }
    const uris = (item.login.uris ?? []).map((u) => clean(u.uri)).filter(Boolean);
    const extra = (item.fields ?? []).filter((f) => f.name).map((f) => `${f.name}: ${f.value ?? ""}`);
    out.credentials.push(
      credential({
        name: item.name,
        url: uris[0] ?? null,
        username: item.login.username ?? "",
        password: item.login.password ?? "",
        notes: [item.notes ?? "", ...extra, ...uris.slice(1).map((u) => `Also used on: ${u}`)].filter(Boolean).join("\n"),
        totp: item.login.totp ?? null,
        folder: item.folderId ? (folders.get(item.folderId) ?? null) : null,
        favorite: item.favorite === true,
      }),
    );
  }
  return out;
}

/** source_mgr_1 CSV: folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp. */
export function parseMgr1Csv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(headers, ["type", "name", "login_uri", "login_username", "login_password"], "source_mgr_1");
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const r of records) {
    if (r.type && r.type.toLowerCase() !== "login") {
      out.skipped.push(`${r.name || "Unnamed item"}: not a login`);
      continue;
    }
    const uris = splitTags(r.login_uri, /,/);
    out.credentials.push(
      credential({
        name: r.name,
        url: uris[0] ?? null,
        username: r.login_username,
        password: r.login_password,
        notes: [r.notes, r.fields].filter(Boolean).join("\n"),
        totp: r.login_totp,
        folder: r.folder,
        favorite: truthy(r.favorite ?? ""),
      }),
    );
  }
  return out;
}

/**
 * source_mgr_2 CSV: url,username,password,totp,extra,name,grouping,fav. Secure notes carry the url
 * `http://sn` and hold no login, so they are skipped.
 */
export function parseMgr2Csv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(headers, ["url", "username", "password", "extra", "name", "grouping"], "source_mgr_2");
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const r of records) {
    if (r.url === "http://sn") {
      out.skipped.push(`${r.name || "Unnamed note"}: secure note`);
      continue;
    }
    out.credentials.push(
      credential({ name: r.name, url: r.url, username: r.username, password: r.password, notes: r.extra, totp: r.totp, folder: r.grouping, favorite: truthy(r.fav ?? "") }),
    );
  }
  return out;
}

/** source_mgr_3 CSV: Title,Url,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes; archived items are skipped. */
export function parseMgr3Csv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(headers, ["title", "url", "username", "password"], "source_mgr_3");
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const r of records) {
    if (truthy(r.archived ?? "")) {
      out.skipped.push(`${r.title || "Unnamed item"}: archived`);
      continue;
    }
    out.credentials.push(
      credential({
        name: r.title,
        url: r.url,
        username: r.username,
        password: r.password,
        notes: r.notes ?? "",
        totp: r.otpauth,
        tags: splitTags(r.tags ?? "", /[;,]/),
        favorite: truthy(r.favorite ?? ""),
      }),
    );
  }
  return out;
}

/**
 * source_mgr_4: the spec does not show its format; this reads the credentials CSV such managers
 * commonly write: username,username2,username3,title,password,note,url,category,otpSecret
 * (docs/decisions.md, Sync: delta sync, import, export).
 */
export function parseMgr4Csv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(headers, ["username", "title", "password", "url"], "source_mgr_4");
  return {
    credentials: records.map((r) => {
      const alternates = [r.username2, r.username3].filter(Boolean).map((u) => `Other login: ${u}`);
      return credential({
        name: r.title,
        url: r.url,
        username: r.username,
        password: r.password,
        notes: [r.note ?? "", ...alternates].filter(Boolean).join("\n"),
        totp: r.otpsecret,
        folder: r.category,
      });
    }),
    skipped: [],
  };
}

/** Generic CSV: the headers name, url, username, password; notes, totp, tags and folder when present. */
export function parseGenericCsv(text: string): ParseOutput {
  const { headers, records } = csvRecords(text);
  requireHeaders(headers, ["name", "url", "username", "password"], "generic CSV");
  return {
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
  };
}

/** Generic JSON: an array of credential objects; common key spellings are accepted. */
export function parseGenericJson(text: string): ParseOutput {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    throw new ImportFormatError("The file is not valid JSON");
  }
  if (!Array.isArray(doc)) throw new ImportFormatError("Generic JSON must be an array of credential objects");
  const out: ParseOutput = { credentials: [], skipped: [] };
  doc.forEach((raw, idx) => {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      out.skipped.push(`item ${idx + 1}: not an object`);
      return;
    }
    const o = raw as Record<string, unknown>;
    const get = (...keys: string[]) => keys.map((k) => o[k]).find((v) => typeof v === "string" && v !== "") as string | undefined;
    const username = get("username", "login", "email", "user") ?? "";
    const password = get("password", "pass") ?? "";
    if (!username && !password) {
      out.skipped.push(`item ${idx + 1}: neither username nor password`);
      return;
    }
    const tags = Array.isArray(o.tags) ? o.tags.filter((t): t is string => typeof t === "string") : splitTags(get("tags") ?? "", /[;,]/);
    out.credentials.push(
      credential({
        name: get("name", "title"),
        url: get("url", "uri", "website", "login_uri"),
        username,
        password,
        notes: get("notes", "note", "extra"),
        totp: get("totp", "otp", "otpauth"),
        tags,
        folder: get("folder", "group", "category"),
        favorite: o.favorite === true,
      }),
    );
  });
  return out;
}
