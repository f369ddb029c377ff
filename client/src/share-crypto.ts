/**
 * Sharing crypto (docs/decisions.md, "Issue 15"). A user's sharing key is an ECDH P-256 pair; the
 * private half is stored wrapped by the vault key (server-side, as ciphertext, for the user's other
 * devices). An item key shared with someone is wrapped under a key agreed between a fresh
 * ephemeral pair and their public key (ECDH, then HKDF-SHA256), so only their private key opens it:
 *   wrapped_vault_key_invite = base64(ephemeral public key, raw 65 bytes || IV(12) || AES-GCM wrap)
 * The entry's data stays bound to the owner's place (envelope.ts): a recipient opens it only as
 * the owner's entry at its website, so a server cannot hand them another blob under the share.
 */
import { fromBase64, toBase64 } from "../../src/kernel/base64";
import { DecryptionError, IV_BYTES, joinIv, splitIv, type EntrySecrets, type VaultKeys } from "./crypto";
import { extractableItemKey, openDataWith, sealDataWith, type Place } from "./envelope";

const EC = { name: "ECDH", namedCurve: "P-256" } as const;
const EPK_BYTES = 65;
export type SharingPublicJwk = { kty: "EC"; crv: "P-256"; x: string; y: string };

export async function unwrapSharingPrivateKey(keys: VaultKeys, wrappedPrivateKey: string): Promise<CryptoKey> {
  try {
    const w = splitIv(wrappedPrivateKey);
    return await crypto.subtle.unwrapKey("pkcs8", w.body, keys.vaultKey, { name: "AES-GCM", iv: w.iv }, EC, false, ["deriveBits"]);
  } catch {
    throw new DecryptionError();
  }
}

export async function makeSharingKeyPair(keys: VaultKeys): Promise<{ publicKey: SharingPublicJwk; wrappedPrivateKey: string; privateKey: CryptoKey }> {
  const pair = await crypto.subtle.generateKey(EC, true, ["deriveBits"]);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const wrappedPrivateKey = joinIv(iv, await crypto.subtle.wrapKey("pkcs8", pair.privateKey, keys.vaultKey, { name: "AES-GCM", iv }));
  const { x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
  // From here on only a non-extractable copy of the private key is kept in memory.
  return { publicKey: { kty: "EC", crv: "P-256", x: x!, y: y! }, wrappedPrivateKey, privateKey: await unwrapSharingPrivateKey(keys, wrappedPrivateKey) };
}

async function shareKek(privateKey: CryptoKey, publicKey: CryptoKey, usage: "wrapKey" | "unwrapKey"): Promise<CryptoKey> {
  const shared = await crypto.subtle.deriveBits({ name: "ECDH", public: publicKey }, privateKey, 256);
  const hkdf = await crypto.subtle.importKey("raw", shared, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: new TextEncoder().encode("credential-vault/share-wrap/v1") }, hkdf, { name: "AES-GCM", length: 256 }, false, [usage]);
}

/** The entry's item key (from its bound wrap under the vault key), wrapped for the recipient's public key. */
export async function wrapItemKeyFor(keys: VaultKeys, place: Place, wrappedItemKey: string, recipient: { x: string; y: string }): Promise<string> {
  const itemKey = await extractableItemKey(keys, place, wrappedItemKey);
  const theirs = await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: recipient.x, y: recipient.y }, EC, false, []);
  const eph = await crypto.subtle.generateKey(EC, true, ["deriveBits"]);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const wrapped = await crypto.subtle.wrapKey("raw", itemKey, await shareKek(eph.privateKey, theirs, "wrapKey"), { name: "AES-GCM", iv });
  const epk = new Uint8Array(await crypto.subtle.exportKey("raw", eph.publicKey));
  const out = new Uint8Array(EPK_BYTES + IV_BYTES + wrapped.byteLength);
  out.set(epk);
  out.set(iv, EPK_BYTES);
  out.set(new Uint8Array(wrapped), EPK_BYTES + IV_BYTES);
  return toBase64(out);
}

async function unwrapSharedItemKey(privateKey: CryptoKey, wrapped: string): Promise<CryptoKey> {
  try {
    const all = fromBase64(wrapped);
    if (all.length <= EPK_BYTES + IV_BYTES) throw new DecryptionError();
    const epk = await crypto.subtle.importKey("raw", all.subarray(0, EPK_BYTES), EC, false, []);
    const kek = await shareKek(privateKey, epk, "unwrapKey");
    const iv = all.subarray(EPK_BYTES, EPK_BYTES + IV_BYTES);
    return await crypto.subtle.unwrapKey("raw", all.subarray(EPK_BYTES + IV_BYTES), kek, { name: "AES-GCM", iv }, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
  } catch {
    throw new DecryptionError("This share's key cannot be opened with your sharing key");
  }
}

/** A shared entry's secrets, opened with the recipient's private key, in the owner's place. */
export async function openSharedEntry(privateKey: CryptoKey, wrappedForMe: string, owner: Place, encryptedData: string): Promise<EntrySecrets> {
  return openDataWith(await unwrapSharedItemKey(privateKey, wrappedForMe), owner, encryptedData);
}

/** New encrypted_data for a shared entry under the same item key (a recipient with write permission). */
export async function sealSharedEntry(privateKey: CryptoKey, wrappedForMe: string, owner: Place, secrets: EntrySecrets): Promise<string> {
  return sealDataWith(await unwrapSharedItemKey(privateKey, wrappedForMe), owner, secrets);
}
