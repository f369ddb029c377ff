/**
 * Machine tokens (docs/crypto.md, "Machine tokens"): the token string `vtk_<id>_<secret>` is shown
 * once. Its 32-byte secret derives, with HKDF under two info strings of its own, an authenticator
 * (the server keeps only its SHA-256) and a wrapping key the server never sees, under which the
 * maker's device wraps one copy of a shared vault's key. The wrap is bound to the token, the vault
 * and the key version, so a server can move it to no other.
 */
import { base64url } from "../../src/kernel/base64";
import { DecryptionError, IV_BYTES, joinIv, splitIv } from "../crypto";

const AUTH_INFO = "credential-vault/machine-token/authenticator/v1";
const WRAP_INFO = "credential-vault/machine-token/wrap/v1";
const TOKEN =
  /^vtk_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
const enc = new TextEncoder();

export type TokenCopy = { tokenId: string; vaultId: string; keyVersion: number };
export type TokenSecret = { id: string; secret: Uint8Array<ArrayBuffer> };
export type TokenKeys = { authenticator: string; wrapKey: CryptoKey };

/** A new token: a fresh id and 32 random bytes. */
export function newTokenSecret(): TokenSecret & { text: string } {
  const id = crypto.randomUUID();
  const secret = crypto.getRandomValues(new Uint8Array(32));
  return { id, secret, text: `vtk_${id}_${base64url.encode(secret)}` };
}

/** The token string's id and secret, or null for a string of another shape. */
export function parseTokenSecret(text: string): TokenSecret | null {
  const m = TOKEN.exec(text.trim());
  if (!m) return null;
  const secret = base64url.decode(m[2]!);
  return secret.length === 32 ? { id: m[1]!, secret } : null;
}

/** The authenticator (base64url) and the wrapping key, both from the secret; the id is the salt. */
export async function tokenKeys(t: TokenSecret): Promise<TokenKeys> {
  const ikm = await crypto.subtle.importKey("raw", t.secret, "HKDF", false, [
    "deriveBits",
    "deriveKey",
  ]);
  const params = (info: string) => ({
    name: "HKDF",
    hash: "SHA-256",
    salt: enc.encode(t.id),
    info: enc.encode(info),
  });
  const auth = await crypto.subtle.deriveBits(params(AUTH_INFO), ikm, 256);
  const wrapKey = await crypto.subtle.deriveKey(
    params(WRAP_INFO),
    ikm,
    { name: "AES-GCM", length: 256 },
    false,
    ["wrapKey", "unwrapKey"],
  );
  return { authenticator: base64url.encode(new Uint8Array(auth)), wrapKey };
}

/** What the server keeps of the authenticator: its SHA-256, in hex. */
export async function authenticatorHash(authenticator: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", enc.encode(authenticator));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const copyAd = (c: TokenCopy) =>
  enc.encode(
    JSON.stringify(["credential-vault/machine-token", 1, c.tokenId, c.vaultId, c.keyVersion]),
  );

export async function wrapVaultKeyForToken(
  vaultKey: CryptoKey,
  wrapKey: CryptoKey,
  copy: TokenCopy,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  return joinIv(
    iv,
    await crypto.subtle.wrapKey("raw", vaultKey, wrapKey, {
      name: "AES-GCM",
      iv,
      additionalData: copyAd(copy),
    }),
  );
}

/** The token's copy of the vault key; fails (DecryptionError) for another token, vault or version. */
export async function openTokenCopy(
  wrapKey: CryptoKey,
  wrapped: string,
  copy: TokenCopy,
): Promise<CryptoKey> {
  try {
    const s = splitIv(wrapped);
    return await crypto.subtle.unwrapKey(
      "raw",
      s.body,
      wrapKey,
      { name: "AES-GCM", iv: s.iv, additionalData: copyAd(copy) },
      { name: "AES-GCM", length: 256 },
      // Extractable: the vault's index key is derived from its bytes (sharedVaultKeys).
      true,
      ["encrypt", "decrypt", "wrapKey", "unwrapKey"],
    );
  } catch {
    throw new DecryptionError("This token's copy of the vault key does not open with it");
  }
}
