/**
 * A shared vault's keys (docs/crypto.md, "Shared vaults"): a random vault key per key version,
 * each member's copy wrapped for their sharing key with the person-wrap layout, entries sealed in
 * the vault's place (the vault in the owner's slot), and the vault's sealed name. The server holds
 * only these ciphertexts; it decides who is a member but can make no member a copy.
 */
import {
  DecryptionError,
  IV_BYTES,
  joinIv,
  openEntry,
  placeOf,
  sealEntry,
  splitIv,
  unwrapKeyFromPerson,
  wrapKeyForPerson,
  type EntrySecrets,
  type Envelope,
  type Place,
  type VaultKeys,
} from "../crypto";

const MEMBER_INFO = "credential-vault/shared-vault-key/v1";
const INDEX_INFO = "credential-vault/shared-vault-index/v1";
const enc = new TextEncoder();
const dec = new TextDecoder();

/** Whose copy a wrap is: the AD names all three, so a server can swap none of them. */
export type MemberCopy = { vaultId: string; keyVersion: number; memberUserId: string };

const memberBinding = (m: MemberCopy) => ({
  info: MEMBER_INFO,
  salt: new Uint8Array(32),
  ad: enc.encode(
    JSON.stringify([
      "credential-vault/shared-vault-key",
      1,
      m.vaultId,
      m.keyVersion,
      m.memberUserId,
    ]),
  ),
});

/**
 * A fresh vault key (version 1 at creation, n+1 at a rotation). Extractable: an owner's or
 * manager's device wraps it for members, and the vault's index key is derived from its bytes.
 */
export function newVaultKey(): Promise<CryptoKey> {
  return crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, [
    "encrypt",
    "decrypt",
    "wrapKey",
    "unwrapKey",
  ]);
}

/** The vault key wrapped for one member's sharing public key (a key the caller has pinned). */
export function wrapVaultKeyForMember(
  vaultKey: CryptoKey,
  recipient: { x: string; y: string },
  copy: MemberCopy,
): Promise<string> {
  return wrapKeyForPerson(vaultKey, recipient, memberBinding(copy));
}

/**
 * The caller's own copy opened with their sharing private key. Fails (DecryptionError) for a copy
 * of another member, vault or key version than `copy` names.
 */
export function openMemberCopy(
  privateKey: CryptoKey,
  wrapped: string,
  copy: MemberCopy,
): Promise<CryptoKey> {
  return unwrapKeyFromPerson(
    privateKey,
    wrapped,
    memberBinding(copy),
    ["encrypt", "decrypt", "wrapKey", "unwrapKey"],
    true,
  );
}

/**
 * The keys an entry envelope takes (core/crypto): the vault key, its version in the wrap header
 * (rounds 0: no passphrase is derived), and the vault's own blind-index key, so every member's
 * device makes the same name and username hashes.
 */
export async function sharedVaultKeys(vaultKey: CryptoKey, keyVersion: number): Promise<VaultKeys> {
  const raw = await crypto.subtle.exportKey("raw", vaultKey);
  const hkdf = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  const indexKey = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: enc.encode(INDEX_INFO) },
    hkdf,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
  return { vaultKey, indexKey, version: keyVersion, iterations: 0 };
}

/** The place of an entry of a shared vault: the vault, marked, in the owner's slot. */
export function vaultPlace(
  vaultId: string,
  e: { id: string; website?: string | null; url?: string | null },
): Place {
  return placeOf(`vault:${vaultId}`, e);
}

export type VaultEntryRef = { id: string; website?: string | null; url?: string | null };

export function sealVaultEntry(
  keys: VaultKeys,
  vaultId: string,
  entry: VaultEntryRef,
  secrets: EntrySecrets,
): Promise<Envelope> {
  return sealEntry(keys, vaultPlace(vaultId, entry), secrets);
}

/** Opens an entry of the vault in its place; a blob of another vault, entry or host fails. */
export async function openVaultEntry(
  keys: VaultKeys,
  vaultId: string,
  entry: VaultEntryRef & Envelope,
): Promise<EntrySecrets> {
  return (await openEntry(keys, vaultPlace(vaultId, entry), entry)).secrets;
}

const nameAd = (vaultId: string) =>
  enc.encode(JSON.stringify(["credential-vault/vault-name", 1, vaultId]));

export async function sealVaultName(
  vaultKey: CryptoKey,
  vaultId: string,
  name: string,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  return joinIv(
    iv,
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: nameAd(vaultId) },
      vaultKey,
      enc.encode(name),
    ),
  );
}

export async function openVaultName(
  vaultKey: CryptoKey,
  vaultId: string,
  sealed: string,
): Promise<string> {
  try {
    const s = splitIv(sealed);
    return dec.decode(
      await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: s.iv, additionalData: nameAd(vaultId) },
        vaultKey,
        s.body,
      ),
    );
  } catch {
    throw new DecryptionError("This vault's name was not sealed for this vault");
  }
}

/** A new vault's id, chosen by the client so its name and first key copy can be bound to it. */
export const newVaultId = () => crypto.randomUUID();
