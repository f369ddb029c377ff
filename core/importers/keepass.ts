/**
 * KeePass databases (KDBX 3.1 and 4.x, as KeePass 2 and KeePassXC write them) and KeePass 2 XML
 * exports, read in the browser with kdbxweb (KeeWeb's maintained reader). The file's password and
 * key file never leave this device; KDBX 4's Argon2d/Argon2id run through hash-wasm (WebAssembly),
 * AES-KDF, AES and ChaCha20 through Web Crypto and kdbxweb.
 *
 * Mapping: Title, UserName, Password, URL, Notes; KeePassXC's extra addresses (`KP2A_URL*`,
 * `URL_*`) become more addresses; the one-time-password fields (`otp`, `TimeOtp-*`, `TOTP Seed`)
 * the TOTP; every other string a custom field (protected ones hidden); the group path below the
 * root the folder; tags; earlier passwords from the entry's history; an expiry date a field.
 * Entries in the Recycle Bin are skipped, attachments named as not imported.
 */
import {
  CryptoEngine,
  Kdbx,
  KdbxCredentials,
  KdbxError,
  ProtectedValue,
  type KdbxEntry,
  type KdbxEntryField,
  type KdbxGroup,
} from "kdbxweb";
import type { CustomField, PastPassword } from "../entry";
import { WrongPasswordError } from "./bitwarden-crypto";
import { kdbxCutShort } from "./kdbx-structure";
import {
  credential,
  finish,
  ImportFormatError,
  type ImportedCredential,
  type ParseOutput,
} from "./model";

const STANDARD = new Set(["Title", "UserName", "Password", "URL", "Notes"]);
const EXTRA_URL = /^(KP2A_URL(_\d+)?|URL_\d+)$/;
const OTP_FIELDS = /^(otp|TimeOtp-.*|TOTP Seed|TOTP Settings)$/;

/** Argon2 for KDBX 4 (RFC 9106), through hash-wasm: kdbxweb ships none of its own. */
const argon2: CryptoEngine.Argon2Fn = async (
  password,
  salt,
  memory,
  iterations,
  length,
  parallelism,
  type,
  version,
) => {
  // hash-wasm computes Argon2 version 1.3 (0x13), the one KeePass and KeePassXC write.
  if (version !== 0x13)
    throw new ImportFormatError(
      "This KeePass database uses Argon2 version 1.0, which this app cannot compute",
    );
  const { argon2d, argon2id } = await import("hash-wasm");
  const run = type === CryptoEngine.Argon2TypeArgon2id ? argon2id : argon2d;
  const out = await run({
    password: new Uint8Array(password),
    salt: new Uint8Array(salt),
    memorySize: memory,
    iterations,
    parallelism,
    hashLength: length,
    outputType: "binary",
  });
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
};

const text = (v: KdbxEntryField | undefined): string =>
  v === undefined ? "" : v instanceof ProtectedValue ? v.getText() : v;

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + BASE32[(value << (5 - bits)) & 31] : out;
}

/**
 * The entry's TOTP as an otpauth URI or base32 secret. KeePassXC writes `otp` (an otpauth URI);
 * KeePass 2.47+ writes `TimeOtp-Secret*` with optional length, period and algorithm; older
 * KeePassXC wrote `TOTP Seed` with `TOTP Settings` ("period;digits").
 */
function totpOf(get: (k: string) => string, label: string): string | null {
  const otp = get("otp").trim();
  if (otp) return otp;
  const secret =
    get("TimeOtp-Secret-Base32").replace(/\s+/g, "").toUpperCase() ||
    (get("TimeOtp-Secret-Hex")
      ? base32(
          Uint8Array.from(get("TimeOtp-Secret-Hex").replace(/\s+/g, "").match(/../g) ?? [], (h) =>
            parseInt(h, 16),
          ),
        )
      : "") ||
    (get("TimeOtp-Secret-Base64")
      ? base32(Uint8Array.from(atob(get("TimeOtp-Secret-Base64").trim()), (c) => c.charCodeAt(0)))
      : "") ||
    (get("TimeOtp-Secret") ? base32(new TextEncoder().encode(get("TimeOtp-Secret"))) : "");
  if (secret) {
    const params = new URLSearchParams({ secret });
    const digits = get("TimeOtp-Length").trim();
    const period = get("TimeOtp-Period").trim();
    const algorithm = get("TimeOtp-Algorithm")
      .trim()
      .replace(/^HMAC-/i, "");
    if (!digits && !period && !algorithm) return secret;
    if (digits) params.set("digits", digits);
    if (period) params.set("period", period);
    if (algorithm) params.set("algorithm", algorithm.toUpperCase());
    return `otpauth://totp/${encodeURIComponent(label)}?${params.toString()}`;
  }
  const seed = get("TOTP Seed").replace(/\s+/g, "");
  if (!seed) return null;
  const [period, digits] = get("TOTP Settings")
    .split(";")
    .map((s) => s.trim());
  if (!period && !digits) return seed;
  const params = new URLSearchParams({ secret: seed });
  if (digits && /^\d+$/.test(digits)) params.set("digits", digits);
  if (period) params.set("period", period);
  return `otpauth://totp/${encodeURIComponent(label)}?${params.toString()}`;
}

/** Earlier passwords, newest first, each with the time it was replaced (the next version's edit). */
function historyOf(entry: KdbxEntry): PastPassword[] {
  const versions = [...entry.history].sort(
    (a, b) => (a.times.lastModTime?.getTime() ?? 0) - (b.times.lastModTime?.getTime() ?? 0),
  );
  const chain = [...versions, entry];
  const out: PastPassword[] = [];
  for (let i = 0; i < chain.length - 1; i++) {
    const was = text(chain[i].fields.get("Password"));
    const next = chain[i + 1];
    if (was && was !== text(next.fields.get("Password")))
      out.push({
        password: was,
        changed_at: (next.times.lastModTime ?? new Date(0)).toISOString(),
      });
  }
  return out.reverse();
}

function fromEntry(entry: KdbxEntry, folder: string): ImportedCredential {
  const get = (k: string) => text(entry.fields.get(k));
  const name = get("Title").trim();
  const urls: string[] = [];
  const fields: CustomField[] = [];
  const changes: string[] = [];
  for (const [key, value] of entry.fields) {
    if (STANDARD.has(key) || OTP_FIELDS.test(key)) continue;
    if (EXTRA_URL.test(key)) urls.push(text(value));
    else
      fields.push({
        name: key,
        value: text(value),
        type: value instanceof ProtectedValue ? "hidden" : "text",
      });
  }
  // KeePass has no hash-based (HOTP) support here: its counter secret stays a hidden field.
  for (const key of entry.fields.keys())
    if (key.startsWith("HmacOtp-"))
      changes.push(
        `the counter-based one-time password field "${key}" is kept as a field (only TOTP gives codes here)`,
      );
  if (entry.times.expires && entry.times.expiryTime) {
    const day = entry.times.expiryTime.toISOString().slice(0, 10);
    fields.push({ name: "Expires", value: day, type: "text" });
    changes.push(`expiry date ${day} kept as the field "Expires"`);
  }
  for (const file of entry.binaries.keys())
    changes.push(
      `attachment "${file}" not imported (save it from KeePass and attach it to the entry here)`,
    );
  const username = get("UserName");
  const password = get("Password");
  const url = get("URL");
  const empty = !username && !password && !url && !urls.length;
  return credential({
    name,
    url,
    urls,
    username,
    password,
    notes: get("Notes"),
    totp: totpOf(get, name || username || "KeePass"),
    tags: entry.tags.filter(Boolean),
    folder,
    kind: empty && get("Notes").trim() ? "note" : "login",
    fields,
    history: historyOf(entry),
    changes,
  });
}

/** Every entry of the database: the group path below the root is the folder; the Recycle Bin is skipped. */
function fromDatabase(db: Kdbx): ParseOutput {
  const out: ParseOutput = { credentials: [], skipped: [] };
  const bin = db.meta.recycleBinEnabled !== false ? db.meta.recycleBinUuid : undefined;
  const walk = (group: KdbxGroup, path: string[], trashed: boolean) => {
    const inBin = trashed || (!!bin && !bin.empty && group.uuid.equals(bin));
    for (const entry of group.entries) {
      if (inBin)
        out.skipped.push({
          name: text(entry.fields.get("Title")) || "Untitled",
          reason: "in KeePass's Recycle Bin",
        });
      else out.credentials.push(fromEntry(entry, path.join("/")));
    }
    for (const sub of group.groups) walk(sub, [...path, sub.name ?? ""], inBin);
  };
  // The root group is the database itself: it names no folder.
  for (const root of db.groups) walk(root, [], false);
  return finish(out);
}

const WHAT = "KeePass database";

/** A kdbxweb failure as the person's message: a wrong key may be retried. */
function explain(err: unknown, file = WHAT): Error {
  if (err instanceof ImportFormatError) return err;
  if (err instanceof KdbxError) {
    if (err.code === "InvalidKey")
      return new WrongPasswordError(
        WHAT,
        "The password or key file does not open this KeePass database",
      );
    if (err.code === "InvalidVersion" || err.code === "Unsupported")
      return new ImportFormatError(
        `This KeePass database uses a format or cipher this app cannot read (${err.message}). Save it with KeePassXC or KeePass 2 as KDBX 4, or export it as KeePass XML`,
      );
    if (err.code === "BadSignature")
      return new ImportFormatError("This file is not a KeePass database");
    return new ImportFormatError(`This ${file} cannot be read: it looks damaged (${err.message})`);
  }
  // A file cut short fails in kdbxweb's binary reader (a RangeError), not with a KdbxError.
  return new ImportFormatError(`This ${file} cannot be read: it looks damaged or cut short`);
}

/** A KDBX database opened with its password and/or key file. WrongPasswordError when they do not open it. */
export async function readKdbx(
  bytes: Uint8Array,
  password: string | undefined,
  keyFile?: Uint8Array,
): Promise<ParseOutput> {
  const short = kdbxCutShort(bytes);
  if (short) throw new ImportFormatError(short);
  try {
    // Set at each read: kdbxweb holds one implementation for the whole page.
    CryptoEngine.setArgon2Impl(argon2);
    const creds = new KdbxCredentials(
      password ? ProtectedValue.fromString(password) : null,
      keyFile ?? null,
    );
    const data = bytes.buffer.slice(
      bytes.byteOffset,
      bytes.byteOffset + bytes.byteLength,
    ) as ArrayBuffer;
    return fromDatabase(await Kdbx.load(data, creds));
  } catch (err) {
    throw explain(err);
  }
}

/** A KeePass 2 XML export: the same layout as the database inside a KDBX, values in plain text. */
export async function readKeePassXml(xml: string): Promise<ParseOutput> {
  try {
    return fromDatabase(await Kdbx.loadXml(xml.replace(/^\uFEFF/, ""), new KdbxCredentials(null)));
  } catch (err) {
    throw explain(err, "KeePass XML file");
  }
}
