/**
 * Files the vault does not read, recognised by their content so that the refusal names what the
 * file seems to be and what the vault reads instead, rather than the error of whichever parser the
 * file fell to ("CSV file is empty" for an XML file, "no items array" for another manager's JSON).
 * Known ones: Keeper's JSON export (top-level `shared_folders` / `records`), SafeInCloud's XML
 * (a `<database>` root holding `<card>` elements), KeePass 1 databases (the KDB signature); then
 * any other JSON, XML or binary file.
 */
import { ImportFormatError } from "./model";

/** A refusal of a file in a format the vault does not read: what it looks like, what we read, what to do. */
export class UnreadableFormatError extends ImportFormatError {
  constructor(
    readonly seen: string,
    readable: readonly string[],
    hint?: string,
  ) {
    super(
      `This looks like ${seen}. The vault reads: ${readable.join("; ")}.${hint ? ` ${hint}` : ""}`,
    );
    this.name = "UnreadableFormatError";
  }
}

/** KeePass 1.x's signature: 0x9AA2D903 then 0xB54BFB65, little-endian (KDBX's second word is 0xB54BFB67). */
const KDB_MAGIC = [0x03, 0xd9, 0xa2, 0x9a, 0x65, 0xfb, 0x4b, 0xb5];
const GENERIC_HINT =
  "Export it as CSV with the columns name, url, username, password (notes, totp and folder when present) and choose Generic CSV.";

type Seen = { seen: string; hint: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === "object" && !Array.isArray(v);

/** Keeper's JSON export: `{"shared_folders": [...], "records": [...]}`, no `items`. */
function keeperJson(doc: Record<string, unknown>): boolean {
  return !("items" in doc) && (Array.isArray(doc.shared_folders) || Array.isArray(doc.records));
}

/** The XML root element's name, after a declaration, comments and a doctype. */
function xmlRoot(text: string): string | null {
  const m =
    /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<([A-Za-z_][\w.:-]*)[\s/>]/.exec(
      text,
    );
  return m ? m[1]! : null;
}

/**
 * Whether the bytes are not text: a NUL, or more than one in ten control bytes, in the first 4 KiB.
 * Text in another encoding than UTF-8 (an old Windows-1252 CSV) still counts as text.
 */
function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 4096);
  let control = 0;
  for (const b of head) {
    if (b === 0) return true;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) control++;
  }
  return control * 10 > head.length;
}

/** What a binary file the vault does not read seems to be (zips and KDBX are read before this). */
export function foreignBinary(bytes: Uint8Array): Seen | null {
  if (KDB_MAGIC.every((b, i) => bytes[i] === b))
    return {
      seen: "a KeePass 1 database (KDB)",
      hint: "Open it in KeePassXC or KeePass 2 (both read .kdb files), save it as a KDBX database and import that file.",
    };
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    return {
      seen: "a text file in UTF-16",
      hint: "Save it as UTF-8 (any text editor can) and import that file.",
    };
  if (looksBinary(bytes))
    return {
      seen: "a binary file, not a text export",
      hint: "Export from your password manager as CSV or JSON and import that file.",
    };
  return null;
}

/** What a text file the vault does not read seems to be, known other managers first. */
export function foreignText(text: string): Seen | null {
  const t = text.replace(/^\uFEFF/, "");
  if (/^\s*\{/.test(t)) {
    let doc: unknown;
    try {
      doc = JSON.parse(t);
    } catch {
      return null;
    }
    if (isObject(doc) && keeperJson(doc))
      return {
        seen: "a Keeper export (JSON)",
        hint: "Export from Keeper as CSV, add the line folder,name,username,password,url,notes above its rows (Keeper's CSV has no header row), and choose Generic CSV.",
      };
    return null;
  }
  const root = xmlRoot(t);
  if (!root || root === "KeePassFile") return null;
  if (root === "database" && /<card[\s>/]/.test(t))
    return {
      seen: "a SafeInCloud export (XML)",
      hint: `In SafeInCloud, export as CSV instead. ${GENERIC_HINT}`,
    };
  if (root.toLowerCase() === "html")
    return { seen: "a web page (HTML), not an export", hint: GENERIC_HINT };
  return { seen: `an XML file (its root element is <${root}>)`, hint: GENERIC_HINT };
}

/** A JSON object none of the readers knows: no Bitwarden, Proton Pass or 1PUX shape at all. */
export function unknownJson(text: string): Seen | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return null;
  }
  if (!isObject(doc)) return null;
  const bitwarden = ["items", "encrypted", "passwordProtected", "folders", "collections"];
  if (bitwarden.some((k) => k in doc)) return null;
  return { seen: "a JSON file that is none of the exports the vault reads", hint: GENERIC_HINT };
}
