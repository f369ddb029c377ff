/**
 * The one TOTP implementation (RFC 6238 over RFC 4226 HOTP), on Web Crypto so that the worker
 * (account 2FA, legacy entry codes), the web client (zero-trust entry codes) and the extension (the
 * code it fills) run the same code, and the RFC 6238 appendix B vectors exercise exactly that.
 *
 * In the browser the secret is imported as an HMAC key and wrapped with the vault key (AES-256-GCM,
 * fresh 96-bit IV): `secretEncrypted` = {iv, ciphertext of the wrap}. Unwrapping gives a
 * non-extractable HMAC key, so the secret bytes never sit in page memory after it is added.
 */
import { fromBase64, toBase64 } from "./base64";

export type TotpAlgorithm = "SHA-1" | "SHA-256" | "SHA-512";

/** What a code is computed from: a base32 (RFC 4648) string or the raw key bytes. */
export type TotpParams = {
  secret: string | Uint8Array;
  algorithm: TotpAlgorithm;
  digits: number;
  period: number;
};

/** A parsed secret, as typed or read from an otpauth:// URI. */
export type TotpSecret = {
  secret: Uint8Array<ArrayBuffer>;
  algorithm: TotpAlgorithm;
  digits: number;
  period: number;
  issuer?: string;
  account?: string;
};

export const TOTP_DEFAULTS = { algorithm: "SHA-1", digits: 6, period: 30 } as const;

/**
 * RFC 4226 section 4 asks for at least 128-bit keys, but many services issued 80-bit ones that users
 * bring in, so the floor is 80 bits; our own 2FA secrets are 160 bits.
 */
const MIN_SECRET_BYTES = 10;

/** Input a person typed or pasted that is no usable secret; the message is meant for them. */
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

/** RFC 4648 base32 without padding (what authenticator apps expect in a URI). */
export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = ((value << 8) | b) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** Maps the spellings clients use ("SHA1", "sha-256", "SHA_512") to one name; null if unknown. */
export function normalizeAlgorithm(name: string): TotpAlgorithm | null {
  const key = name.toUpperCase().replace(/[-_]/g, "");
  if (key === "SHA1") return "SHA-1";
  if (key === "SHA256") return "SHA-256";
  if (key === "SHA512") return "SHA-512";
  return null;
}

function algorithmOf(name: string | null): TotpAlgorithm {
  const algorithm = normalizeAlgorithm(name ?? "SHA1");
  if (!algorithm)
    throw new TotpInputError(`Unsupported algorithm ${name}: use SHA1, SHA256 or SHA512`);
  return algorithm;
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

function checkLength(secret: Uint8Array): void {
  if (secret.length < MIN_SECRET_BYTES)
    throw new TotpInputError(
      `The secret is too short (${secret.length * 8} bits; at least 80 are needed)`,
    );
}

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
    out = { secret: base32Decode(text), ...TOTP_DEFAULTS };
  }
  checkLength(out.secret);
  return out;
}

export async function hmacKeyOf(s: {
  secret: Uint8Array<ArrayBuffer>;
  algorithm: TotpAlgorithm;
}): Promise<CryptoKey> {
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
export function timeStep(epochSeconds: number, period: number): number {
  return Math.floor(Math.floor(epochSeconds) / period);
}

/** Whole seconds until the current code expires (1 to period). */
export function remainingSeconds(epochSeconds: number, period: number): number {
  return period - (Math.floor(epochSeconds) % period);
}

/** The code at `epochMs` and the seconds it has left. */
export async function totpAt(
  key: CryptoKey,
  epochMs: number,
  digits: number,
  period: number,
): Promise<{ code: string; remaining: number }> {
  const seconds = epochMs / 1000;
  return {
    code: await hotp(key, timeStep(seconds, period), digits),
    remaining: remainingSeconds(seconds, period),
  };
}

/** The HMAC key of server-side parameters, refusing what no authenticator would produce codes for. */
async function keyOf(p: TotpParams): Promise<CryptoKey> {
  const secret = typeof p.secret === "string" ? base32Decode(p.secret) : new Uint8Array(p.secret);
  checkLength(secret);
  if (!Number.isInteger(p.digits) || p.digits < 6 || p.digits > 8)
    throw new TotpInputError("digits must be a whole number from 6 to 8");
  if (!Number.isInteger(p.period) || p.period < 1)
    throw new TotpInputError("period must be a whole number of seconds");
  return hmacKeyOf({ secret, algorithm: p.algorithm });
}

export async function totpCode(p: TotpParams, epochSeconds: number): Promise<string> {
  return hotp(await keyOf(p), timeStep(epochSeconds, p.period), p.digits);
}

/** Compares every character, so the time taken says nothing about where a guess went wrong. */
function sameCode(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export type TotpCheck = { valid: true; timeStep: number } | { valid: false };

/**
 * Checks a code against the current step and `windowSteps` steps either side (RFC 6238 section 5.2
 * allows a small window for clock drift and transmission delay). The caller rejects replays by
 * comparing the returned step with the last one it accepted.
 */
export async function checkTotp(
  p: TotpParams,
  token: string,
  epochSeconds: number,
  windowSteps = 1,
): Promise<TotpCheck> {
  if (token.length !== p.digits || !/^\d+$/.test(token)) return { valid: false };
  const key = await keyOf(p);
  const now = timeStep(epochSeconds, p.period);
  for (let d = -windowSteps; d <= windowSteps; d++) {
    if (now + d < 0) continue;
    if (sameCode(await hotp(key, now + d, p.digits), token))
      return { valid: true, timeStep: now + d };
  }
  return { valid: false };
}

/** A fresh 160-bit secret (RFC 4226 section 4's recommended length), base32. */
export function newTotpSecret(): string {
  return base32Encode(crypto.getRandomValues(new Uint8Array(20)));
}

/** The Key Uri Format URI of a secret with the default parameters (which it leaves out). */
export function otpauthUri(issuer: string, label: string, secret: string): string {
  const name = `${issuer}:${label}`.split(":").map(encodeURIComponent).join(":");
  return `otpauth://totp/${name}?secret=${encodeURIComponent(secret)}&issuer=${encodeURIComponent(issuer)}`;
}

/**
 * The current code of an entry's TOTP field (a base32 secret or an otpauth:// URI), or null when
 * the field holds no usable secret.
 */
export async function codeOfField(field: string, epochMs = Date.now()): Promise<string | null> {
  let s: TotpSecret;
  try {
    s = parseTotpInput(field);
  } catch (err) {
    if (err instanceof TotpInputError) return null;
    throw err;
  }
  return (await totpAt(await hmacKeyOf(s), epochMs, s.digits, s.period)).code;
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
