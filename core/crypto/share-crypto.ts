/**
 * Sharing crypto (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people"). A user's sharing key is an ECDH P-256 pair; the
 * private half is stored wrapped by the vault key (server-side, as ciphertext, for the user's other
 * devices). An item key shared with someone is wrapped under a key agreed between a fresh
 * ephemeral pair and their public key (ECDH, then HKDF-SHA256), so only their private key opens it:
 *   wrapped_vault_key_invite = base64(ephemeral public key, raw 65 bytes || IV(12) || AES-GCM wrap)
 * The entry's data stays bound to the owner's place (envelope.ts): a recipient opens it only as
 * the owner's entry at its website, so a server cannot hand them another blob under the share.
 */
import { fromBase64, toBase64 } from "../../src/kernel/base64";
import {
  DecryptionError,
  IV_BYTES,
  joinIv,
  splitIv,
  type EntrySecrets,
  type VaultKeys,
} from "./crypto";
import { extractableItemKey, openDataWith, sealDataWith, type Place } from "./envelope";

const EC = { name: "ECDH", namedCurve: "P-256" } as const;
const EPK_BYTES = 65;
export type SharingPublicJwk = { kty: "EC"; crv: "P-256"; x: string; y: string };

export async function unwrapSharingPrivateKey(
  keys: VaultKeys,
  wrappedPrivateKey: string,
): Promise<CryptoKey> {
  try {
    const w = splitIv(wrappedPrivateKey);
    return await crypto.subtle.unwrapKey(
      "pkcs8",
      w.body,
      keys.vaultKey,
      { name: "AES-GCM", iv: w.iv },
      EC,
      false,
      ["deriveBits"],
    );
  } catch {
    throw new DecryptionError();
  }
}

export async function makeSharingKeyPair(
  keys: VaultKeys,
): Promise<{ publicKey: SharingPublicJwk; wrappedPrivateKey: string; privateKey: CryptoKey }> {
  const pair = await crypto.subtle.generateKey(EC, true, ["deriveBits"]);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const wrappedPrivateKey = joinIv(
    iv,
    await crypto.subtle.wrapKey("pkcs8", pair.privateKey, keys.vaultKey, { name: "AES-GCM", iv }),
  );
  const { x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
  // From here on only a non-extractable copy of the private key is kept in memory.
  return {
    publicKey: { kty: "EC", crv: "P-256", x: x!, y: y! },
    wrappedPrivateKey,
    privateKey: await unwrapSharingPrivateKey(keys, wrappedPrivateKey),
  };
}

const SHARE_INFO = "credential-vault/share-wrap/v1";
const VAULT_KEY_INFO = "credential-vault/vault-key-wrap/v1";

async function shareKek(
  privateKey: CryptoKey,
  publicKey: CryptoKey,
  usage: "wrapKey" | "unwrapKey",
  info = SHARE_INFO,
  salt: Uint8Array<ArrayBuffer> = new Uint8Array(32),
): Promise<CryptoKey> {
  const shared = await crypto.subtle.deriveBits(
    { name: "ECDH", public: publicKey },
    privateKey,
    256,
  );
  const hkdf = await crypto.subtle.importKey("raw", shared, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt, info: new TextEncoder().encode(info) },
    hkdf,
    { name: "AES-GCM", length: 256 },
    false,
    [usage],
  );
}

const importPublic = (k: { x: string; y: string }) =>
  crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: k.x, y: k.y }, EC, false, []);

/** base64(ephemeral public key || IV || wrap): the layout of every key wrapped for a person. */
async function packed(epk: CryptoKey, iv: Uint8Array, wrapped: ArrayBuffer): Promise<string> {
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", epk));
  const out = new Uint8Array(EPK_BYTES + IV_BYTES + wrapped.byteLength);
  out.set(raw);
  out.set(iv, EPK_BYTES);
  out.set(new Uint8Array(wrapped), EPK_BYTES + IV_BYTES);
  return toBase64(out);
}

async function unpacked(wrapped: string) {
  const all = fromBase64(wrapped);
  if (all.length <= EPK_BYTES + IV_BYTES) throw new DecryptionError();
  return {
    epk: await crypto.subtle.importKey("raw", all.subarray(0, EPK_BYTES), EC, false, []),
    iv: all.subarray(EPK_BYTES, EPK_BYTES + IV_BYTES),
    body: all.subarray(EPK_BYTES + IV_BYTES),
  };
}

/** The entry's item key (from its bound wrap under the vault key), wrapped for the recipient's public key. */
export async function wrapItemKeyFor(
  keys: VaultKeys,
  place: Place,
  wrappedItemKey: string,
  recipient: { x: string; y: string },
): Promise<string> {
  const itemKey = await extractableItemKey(keys, place, wrappedItemKey);
  const eph = await crypto.subtle.generateKey(EC, true, ["deriveBits"]);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const wrapped = await crypto.subtle.wrapKey(
    "raw",
    itemKey,
    await shareKek(eph.privateKey, await importPublic(recipient), "wrapKey"),
    { name: "AES-GCM", iv },
  );
  return packed(eph.publicKey, iv, wrapped);
}

async function unwrapSharedItemKey(privateKey: CryptoKey, wrapped: string): Promise<CryptoKey> {
  try {
    const { epk, iv, body } = await unpacked(wrapped);
    const kek = await shareKek(privateKey, epk, "unwrapKey");
    return await crypto.subtle.unwrapKey(
      "raw",
      body,
      kek,
      { name: "AES-GCM", iv },
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
  } catch {
    throw new DecryptionError("This share's key cannot be opened with your sharing key");
  }
}

/** A shared entry's secrets, opened with the recipient's private key, in the owner's place. */
export async function openSharedEntry(
  privateKey: CryptoKey,
  wrappedForMe: string,
  owner: Place,
  encryptedData: string,
): Promise<EntrySecrets> {
  return openDataWith(await unwrapSharedItemKey(privateKey, wrappedForMe), owner, encryptedData);
}

/** New encrypted_data for a shared entry under the same item key (a recipient with write permission). */
export async function sealSharedEntry(
  privateKey: CryptoKey,
  wrappedForMe: string,
  owner: Place,
  secrets: EntrySecrets,
): Promise<string> {
  return sealDataWith(await unwrapSharedItemKey(privateKey, wrappedForMe), owner, secrets);
}

/**
 * Whose vault key a wrap carries and for whom. It is the wrap's associated data, so a server cannot
 * hand a contact one owner's wrap as another's, or move it between an emergency contact and a dead
 * man's switch recipient. `salt` is the HKDF salt: the invite_salt the emergency API stores beside
 * the wrap; the dead man's switch API has no such field, so its wraps use an empty salt (the fresh
 * ephemeral key already makes each wrapping key unique).
 */
export type VaultKeyBinding = {
  purpose: "emergency" | "dead-man-switch";
  ownerId: string;
  recipientEmail: string;
  salt?: Uint8Array<ArrayBuffer>;
};

const vaultKeyAd = (b: VaultKeyBinding) =>
  new TextEncoder().encode(
    JSON.stringify([
      "credential-vault/vault-key",
      1,
      b.purpose,
      b.ownerId,
      b.recipientEmail.trim().toLowerCase(),
    ]),
  );

/**
 * The owner's vault key itself, wrapped for a contact's sharing public key (docs/decisions/client.md,
 * "Client: app shell, OpenID Connect sign-in, journeys between people", "Emergency access and dead man's switch keys"): same layout as wrapItemKeyFor under
 * its own HKDF label. Needs the extractable copy of crypto.deriveExtractableVaultKey.
 */
export function wrapVaultKeyFor(
  vaultKey: CryptoKey,
  recipient: { x: string; y: string },
  bind: VaultKeyBinding,
): Promise<string> {
  return wrapKeyForPerson(vaultKey, recipient, vaultKeyPersonBinding(bind));
}

/** The owner's vault key, opened with the contact's own sharing private key: non-extractable, for unwrapping item keys only. */
export async function unwrapVaultKey(
  privateKey: CryptoKey,
  wrapped: string,
  bind: VaultKeyBinding,
): Promise<CryptoKey> {
  try {
    return await unwrapKeyFromPerson(
      privateKey,
      wrapped,
      vaultKeyPersonBinding(bind),
      ["wrapKey", "unwrapKey"],
      false,
    );
  } catch {
    throw new DecryptionError(
      "The access key cannot be opened with your sharing key (it was not made for you, or not for this vault)",
    );
  }
}

/** The vault key's wrap is the person-wrap layout under its own label, salt and associated data. */
const vaultKeyPersonBinding = (bind: VaultKeyBinding): PersonWrapBinding => ({
  info: VAULT_KEY_INFO,
  salt: bind.salt ?? new Uint8Array(0),
  ad: vaultKeyAd(bind),
});

/**
 * What a key wrapped for a person is bound to: the HKDF label and salt of its wrapping key and the
 * AES-GCM associated data of the wrap (docs/crypto.md, "Sharing keys and shared entries").
 */
export type PersonWrapBinding = { info: string; salt: Uint8Array<ArrayBuffer>; ad: Uint8Array };

/** `key` (raw) wrapped for a person's sharing public key with the person-wrap layout. */
export async function wrapKeyForPerson(
  key: CryptoKey,
  recipient: { x: string; y: string },
  bind: PersonWrapBinding,
): Promise<string> {
  const eph = await crypto.subtle.generateKey(EC, true, ["deriveBits"]);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const kek = await shareKek(
    eph.privateKey,
    await importPublic(recipient),
    "wrapKey",
    bind.info,
    bind.salt,
  );
  return packed(
    eph.publicKey,
    iv,
    await crypto.subtle.wrapKey("raw", key, kek, {
      name: "AES-GCM",
      iv,
      additionalData: bind.ad as Uint8Array<ArrayBuffer>,
    }),
  );
}

/**
 * An AES-256-GCM key wrapped for this person, opened with their sharing private key. Throws
 * DecryptionError when it was made for someone else or under another binding.
 */
export async function unwrapKeyFromPerson(
  privateKey: CryptoKey,
  wrapped: string,
  bind: PersonWrapBinding,
  usages: KeyUsage[],
  extractable: boolean,
): Promise<CryptoKey> {
  try {
    const { epk, iv, body } = await unpacked(wrapped);
    const kek = await shareKek(privateKey, epk, "unwrapKey", bind.info, bind.salt);
    return await crypto.subtle.unwrapKey(
      "raw",
      body,
      kek,
      { name: "AES-GCM", iv, additionalData: bind.ad as Uint8Array<ArrayBuffer> },
      { name: "AES-GCM", length: 256 },
      extractable,
      usages,
    );
  } catch {
    throw new DecryptionError("This key was not wrapped for your sharing key, or not for this use");
  }
}
