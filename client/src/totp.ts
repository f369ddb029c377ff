/**
 * Entry TOTP in the browser (spec "Vault entry TOTP", zero-trust form): codes per RFC 6238 (TOTP)
 * over RFC 4226 (HOTP), computed here; the server keeps only the encrypted secret.
 *
 * The secret is imported as an HMAC key and wrapped with the vault key (AES-256-GCM, fresh 96-bit
 * IV): `secretEncrypted` = {iv, ciphertext of the wrap}. Unwrapping gives a non-extractable HMAC key,
 * so the secret bytes never sit in page memory after it is added.
 */
import { fromBase64, toBase64 } from "../../src/kernel/base64";

export type TotpAlgorithm = "SHA-1" | "SHA-256" | "SHA-512";
export type TotpSecret = {
  secret: Uint8Array<ArrayBuffer>;
  algorithm: TotpAlgorithm;
  digits: number;
  period: number;
  issuer?: string;
  account?: string;
};

export class TotpInputError extends Error {}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32; spaces, dashes and padding are ignored, case does not matter. */
export function base32Decode(text: string): Uint8Array<ArrayBuffer> {
  const clean = text.toUpperCase().replace(/[\s-]/g, "").replace(/=+$/, "");
  if (!clean) throw new TotpInputError("The secret is empty");
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const v = B32.indexOf(ch);
    if (v < 0)
      throw new TotpInputError(`The secret is not base32: “${ch}” is not one of A–Z and 2–7`);
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

function algorithmOf(name: string | null): TotpAlgorithm {
  const key = (name ?? "SHA1").toUpperCase().replace(/[-_]/g, "");
  if (key === "SHA1") return "SHA-1";
  if (key === "SHA256") return "SHA-256";
  if (key === "SHA512") return "SHA-512";
  throw new TotpInputError(`Unsupported algorithm ${name}: use SHA1, SHA256 or SHA512`);
}

function intParam(
  v: string | null,
  fallback: number,
  min: number,
  max: number,
  what: string,
): number {
  if (v === null || v === "") return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new TotpInputError(`${what} must be a whole number from ${min} to ${max}`);
  return n;
}

/** RFC 4226 asks for 128-bit secrets; many services issued 80-bit ones, so 80 bits is the floor (as the server's). */
const MIN_SECRET_BYTES = 10;

/**
 * A typed base32 secret or an `otpauth://totp/...` URI (the Key Uri Format authenticator apps
 * read from QR codes). Anything else is refused with a message for the person.
 */
export function parseTotpInput(input: string): TotpSecret {
  const text = input.trim();
  if (!text) throw new TotpInputError("Enter a secret or an otpauth:// URI");
  let out: TotpSecret;
  if (/^otpauth:/i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new TotpInputError("The otpauth:// URI is malformed");
    }
    if (url.host.toLowerCase() !== "totp")
      throw new TotpInputError(
        url.host.toLowerCase() === "hotp"
          ? "Counter-based (HOTP) codes are not supported, only time-based (TOTP)"
          : "The URI is not an otpauth://totp/ URI",
      );
    const p = url.searchParams;
    const label = decodeURIComponent(url.pathname.replace(/^\//, ""));
    const [labelIssuer, account] = label.includes(":")
      ? [label.slice(0, label.indexOf(":")), label.slice(label.indexOf(":") + 1).trim()]
      : [undefined, label];
    out = {
      secret: base32Decode(p.get("secret") ?? ""),
      algorithm: algorithmOf(p.get("algorithm")),
      digits: intParam(p.get("digits"), 6, 6, 8, "digits"),
      period: intParam(p.get("period"), 30, 5, 300, "period"),
      issuer: p.get("issuer") ?? labelIssuer,
      account: account || undefined,
    };
  } else {
    out = { secret: base32Decode(text), algorithm: "SHA-1", digits: 6, period: 30 };
  }
  if (out.secret.length < MIN_SECRET_BYTES)
    throw new TotpInputError(
      `The secret is too short (${out.secret.length * 8} bits; at least 80 are needed)`,
    );
  return out;
}

/** Wraps the secret under the vault key; the HMAC key exists extractable only for this call. */
export async function sealTotpSecret(
  vaultKey: CryptoKey,
  s: TotpSecret,
): Promise<{ iv: string; ciphertext: string }> {
  const key = await crypto.subtle.importKey(
    "raw",
    s.secret,
    { name: "HMAC", hash: s.algorithm },
    true,
    ["sign"],
  );
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const wrapped = await crypto.subtle.wrapKey("raw", key, vaultKey, { name: "AES-GCM", iv });
  return { iv: toBase64(iv), ciphertext: toBase64(new Uint8Array(wrapped)) };
}

export async function openTotpSecret(
  vaultKey: CryptoKey,
  sealed: { iv: string; ciphertext: string },
  algorithm: TotpAlgorithm,
): Promise<CryptoKey> {
  return crypto.subtle.unwrapKey(
    "raw",
    fromBase64(sealed.ciphertext),
    vaultKey,
    { name: "AES-GCM", iv: fromBase64(sealed.iv) },
    { name: "HMAC", hash: algorithm },
    false,
    ["sign"],
  );
}

export async function hmacKeyOf(s: TotpSecret): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", s.secret, { name: "HMAC", hash: s.algorithm }, false, [
    "sign",
  ]);
}

/** RFC 4226 section 5.3: HMAC of the 8-byte big-endian counter, dynamic truncation, modulo 10^digits. */
export async function hotp(key: CryptoKey, counter: number, digits: number): Promise<string> {
  const msg = new Uint8Array(8);
  new DataView(msg.buffer).setBigUint64(0, BigInt(counter));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, msg));
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin =
    ((mac[offset]! & 0x7f) << 24) |
    (mac[offset + 1]! << 16) |
    (mac[offset + 2]! << 8) |
    mac[offset + 3]!;
  return String(bin % 10 ** digits).padStart(digits, "0");
}

/** RFC 6238 section 4: the counter is floor(unix seconds / period). */
export async function totpAt(
  key: CryptoKey,
  epochMs: number,
  digits: number,
  period: number,
): Promise<{ code: string; remaining: number }> {
  const seconds = Math.floor(epochMs / 1000);
  return {
    code: await hotp(key, Math.floor(seconds / period), digits),
    remaining: period - (seconds % period),
  };
}

export function normalizeAlgorithm(name: string | undefined): TotpAlgorithm {
  try {
    return algorithmOf(name ?? null);
  } catch {
    return "SHA-1";
  }
}
