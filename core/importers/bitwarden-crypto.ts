/**
 * Opens a Bitwarden password-protected JSON export in the browser, with the export's password:
 * the key is PBKDF2-SHA256 or Argon2id of the password (per the file's kdfType), stretched with
 * HKDF-Expand into an AES-256-CBC key and an HMAC-SHA256 key; every value is an EncString of type 2
 * ("2.iv|ciphertext|mac", AES-CBC with HMAC over iv and ciphertext), checked before it is decrypted.
 */
import { fromBase64, toBase64 } from "../../src/kernel/base64";
import { ImportFormatError } from "./model";

export type ProtectedExport = {
  encrypted: true;
  passwordProtected: true;
  salt: string;
  kdfType: number;
  kdfIterations: number;
  kdfMemory?: number;
  kdfParallelism?: number;
  encKeyValidation_DO_NOT_EDIT: string;
  data: string;
  /** "cxf" or "vault" on this vault's own protected exports, so a prompt can name what is asked for. */
  contents?: string;
};

const enc = new TextEncoder();
const PBKDF2 = 0;
const ARGON2ID = 1;

/** Raised for a wrong export password: the person can try again. */
export class WrongPasswordError extends ImportFormatError {
  constructor(what: string, message = `The password does not open this ${what}`) {
    super(message);
    this.name = "WrongPasswordError";
  }
}

export const isProtectedExport = (doc: unknown): doc is ProtectedExport =>
  !!doc &&
  typeof doc === "object" &&
  (doc as ProtectedExport).encrypted === true &&
  (doc as ProtectedExport).passwordProtected === true &&
  typeof (doc as ProtectedExport).data === "string";

/** The 32-byte master key of the export, before stretching. */
async function masterKey(password: string, doc: ProtectedExport): Promise<Uint8Array<ArrayBuffer>> {
  if (doc.kdfType === PBKDF2) {
    if (
      !Number.isSafeInteger(doc.kdfIterations) ||
      doc.kdfIterations < 1 ||
      doc.kdfIterations > 10_000_000
    )
      throw new ImportFormatError("The export's PBKDF2 settings are out of range");
    const base = await crypto.subtle.importKey("raw", enc.encode(password), "PBKDF2", false, [
      "deriveBits",
    ]);
    return new Uint8Array(
      await crypto.subtle.deriveBits(
        {
          name: "PBKDF2",
          hash: "SHA-256",
          salt: enc.encode(doc.salt),
          iterations: doc.kdfIterations,
        },
        base,
        256,
      ),
    );
  }
  if (doc.kdfType === ARGON2ID) {
    const memory = doc.kdfMemory ?? 64;
    const parallelism = doc.kdfParallelism ?? 4;
    if (
      memory < 1 ||
      memory > 1024 ||
      doc.kdfIterations < 1 ||
      doc.kdfIterations > 100 ||
      parallelism < 1 ||
      parallelism > 16
    )
      throw new ImportFormatError("The export's Argon2 settings are out of range");
    const salt = new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(doc.salt)));
    let out: Uint8Array;
    try {
      const { argon2id } = await import("hash-wasm");
      out = await argon2id({
        password,
        salt,
        iterations: doc.kdfIterations,
        memorySize: memory * 1024,
        parallelism,
        hashLength: 32,
        outputType: "binary",
      });
    } catch {
      // Argon2 runs as WebAssembly (the app's CSP allows it with 'wasm-unsafe-eval'); a browser
      // with WebAssembly turned off cannot compute it: say so rather than fail without a reason.
      throw new ImportFormatError(
        "This export is protected with Argon2id, which this browser cannot compute (WebAssembly is turned off). In Bitwarden, export the vault as .json (not password protected), import that file here, then delete it",
      );
    }
    return new Uint8Array(out);
  }
  throw new ImportFormatError(
    `The export uses a key derivation (type ${String(doc.kdfType)}) this app does not know`,
  );
}

/** HKDF-Expand (RFC 5869 section 2.3) for one block: HMAC(prk, info || 0x01). */
async function expand(
  prk: Uint8Array<ArrayBuffer>,
  info: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const k = await crypto.subtle.importKey("raw", prk, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return new Uint8Array(
    await crypto.subtle.sign("HMAC", k, new Uint8Array([...enc.encode(info), 1])),
  );
}

type Keys = { enc: CryptoKey; mac: CryptoKey };

async function stretched(master: Uint8Array<ArrayBuffer>): Promise<Keys> {
  const [e, m] = await Promise.all([expand(master, "enc"), expand(master, "mac")]);
  return {
    enc: await crypto.subtle.importKey("raw", e, "AES-CBC", false, ["decrypt"]),
    mac: await crypto.subtle.importKey("raw", m, { name: "HMAC", hash: "SHA-256" }, false, [
      "verify",
    ]),
  };
}

/** An EncString of type 2 opened, or null when its MAC does not hold (wrong key or altered file). */
async function openEncString(keys: Keys, value: string): Promise<string | null> {
  const m = /^2\.([^|]+)\|([^|]+)\|([^|]+)$/.exec(value.trim());
  if (!m)
    throw new ImportFormatError(
      "The export holds a value that is not an AES-CBC-HMAC encrypted string",
    );
  const [iv, ct, mac] = [fromBase64(m[1]), fromBase64(m[2]), fromBase64(m[3])];
  const signed = new Uint8Array(iv.length + ct.length);
  signed.set(iv);
  signed.set(ct, iv.length);
  if (!(await crypto.subtle.verify("HMAC", keys.mac, mac, signed))) return null;
  return new TextDecoder().decode(
    await crypto.subtle.decrypt({ name: "AES-CBC", iv }, keys.enc, ct),
  );
}

/** The export's plain JSON text; WrongPasswordError when the password does not open it. */
export async function openProtectedExport(
  doc: ProtectedExport,
  password: string,
  what = "Bitwarden export",
): Promise<string> {
  const keys = await stretched(await masterKey(password, doc));
  if ((await openEncString(keys, doc.encKeyValidation_DO_NOT_EDIT)) === null)
    throw new WrongPasswordError(what);
  const data = await openEncString(keys, doc.data);
  if (data === null)
    throw new ImportFormatError(
      "The Bitwarden export's data does not match its checksum: the file was altered or damaged",
    );
  return data;
}

/** An EncString of type 2: AES-256-CBC under a fresh IV, HMAC-SHA256 over iv || ciphertext. */
async function sealEncString(
  keys: { enc: CryptoKey; mac: CryptoKey },
  text: string,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(16));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-CBC", iv }, keys.enc, enc.encode(text)),
  );
  const signed = new Uint8Array(iv.length + ct.length);
  signed.set(iv);
  signed.set(ct, iv.length);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", keys.mac, signed));
  return `2.${toBase64(iv)}|${toBase64(ct)}|${toBase64(mac)}`;
}

/**
 * A JSON text protected with a password in the same construction this reader opens (PBKDF2-SHA256,
 * 600,000 iterations, a random salt; HKDF-Expand; EncStrings): the vault's own password-protected
 * exports (the vault file and the CXF file), which this page's import opens with the password.
 * `contents` names what is inside, so the import's prompt can say which file it asks for.
 */
export async function protectExport(
  text: string,
  password: string,
  iterations = 600_000,
  contents: "cxf" | "vault" = "cxf",
): Promise<ProtectedExport> {
  const salt = toBase64(crypto.getRandomValues(new Uint8Array(16)));
  const base = await crypto.subtle.importKey("raw", enc.encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  const master = new Uint8Array(
    await crypto.subtle.deriveBits(
      { name: "PBKDF2", hash: "SHA-256", salt: enc.encode(salt), iterations },
      base,
      256,
    ),
  );
  const [e, m] = await Promise.all([expand(master, "enc"), expand(master, "mac")]);
  const keys = {
    enc: await crypto.subtle.importKey("raw", e, "AES-CBC", false, ["encrypt"]),
    mac: await crypto.subtle.importKey("raw", m, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]),
  };
  return {
    encrypted: true,
    passwordProtected: true,
    contents,
    salt,
    kdfType: PBKDF2,
    kdfIterations: iterations,
    encKeyValidation_DO_NOT_EDIT: await sealEncString(keys, crypto.randomUUID()),
    data: await sealEncString(keys, text),
  };
}
