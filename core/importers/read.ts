/**
 * Reads another manager's export into plaintext items for the client to encrypt and send to
 * POST /api/passwords/import. Runs in the browser: no Workers or Node APIs. The format is judged
 * from the file itself (zip contents, JSON shape, XML root, CSV header row) and every error names
 * the format the file was read as.
 */
import { csvRecords } from "./csv";
import {
  bitwardenPasskeys,
  fromMgr1Doc,
  parseMgr1Csv,
  protectedExportGaps,
  type Mgr1Doc,
} from "./bitwarden";
import { foreignBinary, foreignText, UnreadableFormatError, unknownJson } from "./foreign";
import { isProtectedExport, openProtectedExport } from "./bitwarden-crypto";
import {
  parseBrowserCsv,
  parseGenericCsv,
  parseGenericJson,
  parseKeePassXcCsv,
  parseNordPassCsv,
} from "./formats";
import { isDashlaneZip, parseDashlaneZip, parseMgr4Csv } from "./dashlane";
import { parseMgr2Csv } from "./lastpass";
import { isOnePasswordFullCsv, parseMgr3Csv } from "./onepassword-csv";
import { ImportFormatError, readJson, type ImportedCredential, type ParseOutput } from "./model";
import { kdbxCutShort } from "./kdbx-structure";
import { readKeePass } from "./keepass-reader";
import { fromOnePuxDoc, type OnePuxDoc } from "./onepux";
import { fromProtonDoc, isProtonDoc, type ProtonDoc } from "./proton";
import { readZip } from "./zip";

export { parseCsv } from "./csv";
export { WrongPasswordError } from "./bitwarden-crypto";
export { ImportFormatError, type ImportedCredential, type Skipped } from "./model";
export { UnreadableFormatError } from "./foreign";

/** The spec's `provider` values for POST /api/passwords/import. */
export type ImportProvider =
  | "source_browser"
  | "source_mgr_1"
  | "source_mgr_2"
  | "source_mgr_3"
  | "source_mgr_4"
  | "generic";

/** What a file can be read as: a provider's own formats, and the formats the API files under generic. */
export type ImportFormat =
  | ImportProvider
  | "nordpass"
  | "keepassxc"
  | "keepass"
  | "proton_pass"
  | "onepux";

export const FORMAT_LABELS: Record<ImportFormat, string> = {
  source_mgr_1: "Bitwarden (JSON, password-protected JSON or CSV)",
  source_mgr_3: "1Password (CSV, 1Password 7's all-fields CSV too)",
  onepux: "1Password (1PUX)",
  source_mgr_2: "LastPass (CSV)",
  source_mgr_4: "Dashlane (CSV files or their zip)",
  proton_pass: "Proton Pass (JSON or ZIP)",
  nordpass: "NordPass (CSV)",
  keepass: "KeePass / KeePassXC (KDBX database or KeePass 2 XML)",
  keepassxc: "KeePassXC (CSV)",
  source_browser: "Browser export (Chrome, Edge, Firefox, Safari CSV)",
  generic: "Generic CSV or JSON (name, url, username, password)",
};

const PROVIDER: Record<ImportFormat, ImportProvider> = {
  source_browser: "source_browser",
  source_mgr_1: "source_mgr_1",
  source_mgr_2: "source_mgr_2",
  source_mgr_3: "source_mgr_3",
  onepux: "source_mgr_3",
  source_mgr_4: "source_mgr_4",
  nordpass: "generic",
  keepassxc: "generic",
  keepass: "generic",
  proton_pass: "generic",
  generic: "generic",
};

export type ImportResult = ParseOutput & { provider: ImportProvider; format: ImportFormat };

/** What the password request names for a KDBX file: its password, key file or both open it. */
export const KDBX_WHAT = "KeePass database";

/** Raised when the file is an encrypted export: ask for its password (and key file for KeePass) and read again. */
export class PasswordNeededError extends Error {
  constructor(readonly what: string) {
    super(
      what === KDBX_WHAT
        ? `This ${what} is locked: enter its master password, choose its key file, or both`
        : `This ${what} is protected by a password: enter it to read the file`,
    );
    this.name = "PasswordNeededError";
  }
}

const stripBom = (text: string) => text.replace(/^\uFEFF/, "");
const looksLikeJson = (text: string) => /^\s*[[{]/.test(stripBom(text));

/** Which format wrote this text file, by its JSON shape or its CSV header row. */
export function detectFormat(text: string): ImportFormat {
  if (looksLikeJson(text)) {
    const t = stripBom(text).trimStart();
    if (!t.startsWith("{")) return "generic";
    try {
      const doc = JSON.parse(t) as Record<string, unknown>;
      if (isProtonDoc(doc)) return "proton_pass";
      if (Array.isArray(doc.accounts)) return "onepux";
    } catch {
      // Not JSON after all: the chosen parser says so with its format's name.
    }
    return "source_mgr_1";
  }
  const h = new Set(csvRecords(stripBom(text).split(/\r?\n/, 1)[0] ?? "").headers);
  const has = (...names: string[]) => names.every((n) => h.has(n));
  if (has("login_uri", "login_username", "login_password")) return "source_mgr_1";
  if (has("extra", "grouping")) return "source_mgr_2";
  if (
    has("additional_urls", "folder", "type") ||
    has("cardholdername", "custom_fields") ||
    has("cardholdername", "cardnumber", "folder")
  )
    return "nordpass";
  if (has("group", "title", "username", "password", "url", "notes")) return "keepassxc";
  if (isOnePasswordFullCsv(h)) return "source_mgr_3";
  if (
    has("title", "url", "username", "password", "archived") ||
    (has("title", "website", "username", "password") && !h.has("url"))
  )
    return "source_mgr_3";
  if (
    has("username2", "title") ||
    h.has("otpsecret") ||
    h.has("otpurl") ||
    h.has("cc_number") ||
    has("account_name", "account_number") ||
    h.has("date_of_birth") ||
    h.has("place_of_issue")
  )
    return "source_mgr_4";
  if (has("title", "note") && h.size <= 3 && !h.has("password")) return "source_mgr_4";
  if (
    has("url", "username", "password") &&
    (h.has("httprealm") ||
      h.has("formactionorigin") ||
      h.has("note") ||
      h.has("otpauth") ||
      h.has("title"))
  )
    return "source_browser";
  return "generic";
}

/**
 * The refusal of a file the vault does not read: what it seems to be, then every format of the
 * table above (so the list stays what the code reads), then what to do.
 */
const unreadable = (seen: { seen: string; hint: string }) =>
  new UnreadableFormatError(seen.seen, Object.values(FORMAT_LABELS), seen.hint);

/** @deprecated name kept for callers that want the API's provider only. */
export const detectProvider = (text: string): ImportProvider => PROVIDER[detectFormat(text)];

/**
 * Parses a plain (unencrypted, unzipped) export. Throws ImportFormatError naming the format, or
 * UnreadableFormatError for a file of a format the vault does not read (another manager's JSON or
 * XML: whatever was chosen, no reader here can take it).
 */
export function parseImport(text: string, format?: ImportFormat): ImportResult {
  const other = foreignText(text) ?? (format === undefined ? autoUnknownJson(text) : null);
  if (other) throw unreadable(other);
  return parseText(text, format ?? detectFormat(text));
}

/** A JSON object detection would hand to the Bitwarden reader only because it is JSON. */
const autoUnknownJson = (text: string) =>
  looksLikeJson(text) && detectFormat(text) === "source_mgr_1" ? unknownJson(text) : null;

function parseText(text: string, format: ImportFormat): ImportResult {
  const json = looksLikeJson(text);
  let out: ParseOutput;
  switch (format) {
    case "source_browser":
      out = parseBrowserCsv(text);
      break;
    case "source_mgr_1":
      if (json) {
        const doc = readJson(text, "Bitwarden JSON") as Mgr1Doc;
        const gaps = protectedExportGaps(doc);
        if (gaps) throw new ImportFormatError(gaps);
        if (isProtectedExport(doc)) throw new PasswordNeededError("Bitwarden export");
        out = fromMgr1Doc(doc);
      } else out = parseMgr1Csv(text);
      break;
    case "source_mgr_2":
      out = parseMgr2Csv(text);
      break;
    case "source_mgr_3":
      out = parseMgr3Csv(text);
      break;
    case "source_mgr_4":
      out = parseMgr4Csv(text);
      break;
    case "nordpass":
      out = parseNordPassCsv(text);
      break;
    case "keepassxc":
      out = parseKeePassXcCsv(text);
      break;
    case "proton_pass": {
      const doc = readJson(text, "Proton Pass JSON");
      if (!isProtonDoc(doc))
        throw new ImportFormatError("Not a Proton Pass JSON export: no vaults");
      out = fromProtonDoc(doc);
      break;
    }
    case "keepass":
      throw new ImportFormatError(
        "A KeePass file is read from its bytes: not a KeePass 2 XML export",
      );
    case "onepux":
      out = fromOnePuxDoc(readJson(text, "1Password 1PUX export.data") as OnePuxDoc);
      break;
    case "generic":
      out = json ? parseGenericJson(text) : parseGenericCsv(text);
      break;
    default:
      throw new ImportFormatError(`Unknown format ${String(format)}`);
  }
  return { ...out, provider: PROVIDER[format], format };
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
/** A KeePass 2 XML export: its root element is `<KeePassFile>` (after an XML declaration or comments). */
const isKeePassXmlText = (text: string) =>
  /^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<KeePassFile[\s>]/.test(stripBom(text));
const KDBX_MAGIC = [0x03, 0xd9, 0xa2, 0x9a, 0x67, 0xfb, 0x4b, 0xb5];
const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((b, i) => bytes[i] === b);

/**
 * Any export file as its bytes: zips (1PUX, Proton Pass), password-protected Bitwarden JSON (with
 * `password`), and every text format. `format` is the person's choice, or detection when absent.
 */
export async function readImportFile(
  bytes: Uint8Array,
  opts: { format?: ImportFormat; password?: string; keyFile?: Uint8Array } = {},
): Promise<ImportResult> {
  if (startsWith(bytes, KDBX_MAGIC)) {
    // A file cut short is said before a password is asked for (and never as a wrong password).
    const short = kdbxCutShort(bytes);
    if (short) throw new ImportFormatError(short);
    if (!opts.password && !opts.keyFile) throw new PasswordNeededError(KDBX_WHAT);
    return {
      ...(await readKeePass({
        kind: "kdbx",
        bytes,
        password: opts.password,
        keyFile: opts.keyFile,
      })),
      provider: "generic",
      format: "keepass",
    };
  }
  if (startsWith(bytes, ZIP_MAGIC)) {
    const files = await readZip(bytes);
    const exportData = files.get("export.data");
    if (exportData !== undefined && opts.format !== "proton_pass")
      return parseText(exportData, "onepux");
    const proton = [...files.entries()].find(([name]) => /(^|\/)data\.json$/.test(name));
    if (proton && opts.format !== "onepux") return parseText(proton[1], "proton_pass");
    if (!opts.format || opts.format === "source_mgr_4") {
      const csvs = await readZip(bytes, /\.csv$/i);
      if (isDashlaneZip([...csvs.keys()]))
        return { ...parseDashlaneZip(csvs), provider: "source_mgr_4", format: "source_mgr_4" };
    }
    const want =
      opts.format === "onepux"
        ? "a 1Password 1PUX export (no export.data inside)"
        : opts.format === "proton_pass"
          ? "a Proton Pass export (no data.json inside)"
          : opts.format === "source_mgr_4"
            ? "a Dashlane CSV export (no credentials.csv inside)"
            : "a 1Password 1PUX, Proton Pass or Dashlane CSV export";
    throw new ImportFormatError(`This zip file is not ${want}`);
  }
  const binary = foreignBinary(bytes);
  if (binary) throw unreadable(binary);
  const text = new TextDecoder().decode(bytes);
  if (isKeePassXmlText(text) && (!opts.format || opts.format === "keepass")) {
    return {
      ...(await readKeePass({ kind: "xml", text })),
      provider: "generic",
      format: "keepass",
    };
  }
  const other = foreignText(text) ?? (opts.format ? null : autoUnknownJson(text));
  if (other) throw unreadable(other);
  if (opts.format === "keepass")
    throw new ImportFormatError(
      "This file is neither a KeePass database (KDBX) nor a KeePass 2 XML export",
    );
  const format = opts.format ?? detectFormat(text);
  if (format === "source_mgr_1" && looksLikeJson(text)) {
    let doc = readJson(text, "Bitwarden JSON") as Mgr1Doc;
    const gaps = protectedExportGaps(doc);
    if (gaps) throw new ImportFormatError(gaps);
    if (isProtectedExport(doc)) {
      if (!opts.password) throw new PasswordNeededError("Bitwarden export");
      doc = readJson(await openProtectedExport(doc, opts.password), "Bitwarden JSON") as Mgr1Doc;
    }
    // Passkeys are read first (Web Crypto imports their keys), then land in their logins' entries.
    return {
      ...fromMgr1Doc(doc, await bitwardenPasskeys(doc)),
      provider: "source_mgr_1",
      format: "source_mgr_1",
    };
  }
  return parseText(text, format);
}

/**
 * A password-protected JSON export opened (Bitwarden's, or this vault's own CXF export, which uses
 * the same construction), so the person's file is then read as what it holds; other bytes as they
 * are. PasswordNeededError without a password, WrongPasswordError with a wrong one.
 */
export async function openIfProtected(bytes: Uint8Array, password?: string): Promise<Uint8Array> {
  if (!/^\s*\{/.test(new TextDecoder().decode(bytes.subarray(0, 64)))) return bytes;
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return bytes;
  }
  const contents = (doc as { contents?: unknown } | null)?.contents;
  const what =
    contents === "cxf" ? "CXF export" : contents === "vault" ? "vault export" : "Bitwarden export";
  const gaps = protectedExportGaps(doc, what);
  if (gaps) throw new ImportFormatError(gaps);
  if (!isProtectedExport(doc)) return bytes;
  if (!password) throw new PasswordNeededError(what);
  return new TextEncoder().encode(await openProtectedExport(doc, password, what));
}

/** The plaintext that goes into an entry's encrypted_data (everything secret about a credential). */
export function secretPayload(c: ImportedCredential) {
  return {
    username: c.username,
    password: c.password,
    notes: c.notes,
    totp: c.totp,
    url: c.url,
    folder: c.folder,
    favorite: c.favorite,
    ...(c.kind !== "login" ? { kind: c.kind } : {}),
    ...(c.urls.length ? { urls: c.urls } : {}),
    ...(c.fields.length ? { fields: c.fields } : {}),
    ...(c.card ? { card: c.card } : {}),
    ...(c.identity ? { identity: c.identity } : {}),
    ...(c.history.length ? { password_history: c.history } : {}),
  };
}
