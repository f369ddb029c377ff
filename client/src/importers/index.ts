import { csvRecords, ImportFormatError } from "./csv";
import {
  parseBrowserCsv,
  parseGenericCsv,
  parseGenericJson,
  parseMgr1Csv,
  parseMgr1Json,
  parseMgr2Csv,
  parseMgr3Csv,
  parseMgr4Csv,
  type ImportedCredential,
  type ParseOutput,
} from "./formats";

export { ImportFormatError, parseCsv } from "./csv";
export { hostnameOf, type ImportedCredential } from "./formats";

/** The spec's `provider` values for POST /api/passwords/import. */
export type ImportProvider = "source_browser" | "source_mgr_1" | "source_mgr_2" | "source_mgr_3" | "source_mgr_4" | "generic";

export type ImportResult = ParseOutput & { provider: ImportProvider; format: "csv" | "json" };

const looksLikeJson = (text: string) => /^\s*[[{]/.test(text.replace(/^\uFEFF/, ""));

/** Which provider wrote this file, judged by its JSON shape or its CSV header row. */
export function detectProvider(text: string): ImportProvider {
  if (looksLikeJson(text)) {
    const t = text.replace(/^\uFEFF/, "").trimStart();
    return t.startsWith("{") ? "source_mgr_1" : "generic";
  }
  const h = new Set(csvRecords(text.split(/\r?\n/, 1)[0] ?? "").headers);
  const has = (...names: string[]) => names.every((n) => h.has(n));
  if (has("login_uri", "login_username", "login_password")) return "source_mgr_1";
  if (has("extra", "grouping")) return "source_mgr_2";
  if (has("title", "url", "username", "password") && (h.has("otpauth") && h.has("archived"))) return "source_mgr_3";
  if (has("username2", "title") || has("otpsecret")) return "source_mgr_4";
  if (has("url", "username", "password") && (h.has("httprealm") || h.has("formactionorigin") || h.has("note") || h.has("otpauth"))) {
    return "source_browser";
  }
  return "generic";
}

/**
 * Parses an export file into plaintext credentials for the client to encrypt and send to
 * POST /api/passwords/import with `provider`. Runs in the browser: no Workers or Node APIs.
 * Throws ImportFormatError when the file is not of the given (or detected) provider's format.
 */
export function parseImport(text: string, provider: ImportProvider = detectProvider(text)): ImportResult {
  const json = looksLikeJson(text);
  let out: ParseOutput;
  switch (provider) {
    case "source_browser":
      out = parseBrowserCsv(text);
      break;
    case "source_mgr_1":
      out = json ? parseMgr1Json(text) : parseMgr1Csv(text);
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
    case "generic":
      out = json ? parseGenericJson(text) : parseGenericCsv(text);
      break;
    default:
      throw new ImportFormatError(`Unknown provider ${String(provider)}`);
  }
  return { ...out, provider, format: json ? "json" : "csv" };
}

/** The plaintext that goes into an entry's encrypted_data (everything secret about a credential). */
export function secretPayload(c: ImportedCredential) {
  return { username: c.username, password: c.password, notes: c.notes, totp: c.totp, url: c.url, folder: c.folder, favorite: c.favorite };
}
