import { base64url, fromBase64, toBase64 } from "../kernel/base64";
import { SealedValueError } from "./errors";

const enc = new TextEncoder();

export function toHex(buf: ArrayBuffer | Uint8Array): string {
  const bytes = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  const data = typeof input === "string" ? enc.encode(input) : input;
  return toHex(await crypto.subtle.digest("SHA-256", data));
}

export async function hmacSha256(
  secret: string | Uint8Array,
  message: string,
): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    typeof secret === "string" ? enc.encode(secret) : secret,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(message)));
}

/** Constant-time string comparison (workerd's timingSafeEqual needs equal lengths). */
export function timingSafeEqualStr(a: string, b: string): boolean {
  const ab = enc.encode(a);
  const bb = enc.encode(b);
  if (ab.length !== bb.length) {
    crypto.subtle.timingSafeEqual(ab, ab);
    return false;
  }
  return crypto.subtle.timingSafeEqual(ab, bb);
}

export function randomId(): string {
  return crypto.randomUUID();
}

export function randomToken(bytes = 32): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}

export type Sealed = { kid: string; iv: string; ct: string };

/**
 * The data keys, current first, then the previous ones still accepted for opening (D10 rotation).
 * A single key string is a ring of one.
 */
export type DataKeys = string | readonly string[];

const ring = (keys: DataKeys): readonly string[] => (typeof keys === "string" ? [keys] : keys);

/**
 * Seals server-held secrets (DECISIONS D10): AES-256-GCM under the current DATA_ENCRYPTION_KEY,
 * with its key id beside the ciphertext so the key can be rotated; `aad` binds the ciphertext to
 * its owner and purpose.
 */
export async function seal(keys: DataKeys, plaintext: string, aad: string): Promise<string> {
  const raw = fromBase64(ring(keys)[0]);
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: enc.encode(aad) },
    key,
    enc.encode(plaintext),
  );
  const sealed: Sealed = {
    kid: await keyId(raw),
    iv: toBase64(iv),
    ct: toBase64(new Uint8Array(ct)),
  };
  return JSON.stringify(sealed);
}

/**
 * Opens with whichever key of the ring has the sealed value's key id. An unknown id, a value that
 * does not authenticate or one that is not a sealed value at all is a SealedValueError, which says
 * what it was without the crypto exception (whose text is no business of a log).
 */
export async function unseal(keys: DataKeys, sealedJson: string, aad: string): Promise<string> {
  const purpose = aad.split(":")[0] ?? "";
  let sealed: Sealed;
  try {
    sealed = JSON.parse(sealedJson) as Sealed;
    if (
      typeof sealed?.kid !== "string" ||
      typeof sealed.iv !== "string" ||
      typeof sealed.ct !== "string"
    )
      throw new Error();
  } catch {
    throw new SealedValueError(purpose, "", "malformed");
  }
  const kid = sealed.kid.slice(0, 16);
  let raw: Uint8Array | undefined;
  for (const k of ring(keys)) {
    const candidate = fromBase64(k);
    if ((await keyId(candidate)) === sealed.kid) {
      raw = candidate;
      break;
    }
  }
  if (!raw) throw new SealedValueError(purpose, kid, "unknown-key-id");
  try {
    const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["decrypt"]);
    const pt = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64(sealed.iv), additionalData: enc.encode(aad) },
      key,
      fromBase64(sealed.ct),
    );
    return new TextDecoder().decode(pt);
  } catch {
    throw new SealedValueError(purpose, kid, "does-not-open");
  }
}

/** The key id a sealed value names: the first 16 hex digits of SHA-256 of the key. */
export async function dataKeyId(keyB64: string): Promise<string> {
  return keyId(fromBase64(keyB64));
}

async function keyId(raw: Uint8Array): Promise<string> {
  return (await sha256Hex(raw)).slice(0, 16);
}
