/**
 * Client-side vault crypto (spec "Password entry", V3), Web Crypto only.
 *
 * Master passphrase -> PBKDF2-SHA256 (600,000 iterations, salt bound to the user id) -> 256-bit
 * root -> HKDF-SHA256 into two independent keys: the vault key (AES-256-GCM, wraps item keys) and
 * the index key (HMAC-SHA256, blind indexes). Both are non-extractable.
 *
 * Each entry has its own random AES-256-GCM item key. encrypted_data is base64(IV || ciphertext+tag)
 * of the JSON payload under the item key; wrapped_item_key is base64(IV || wrapped key) under the
 * vault key: the layout client/src/attachments.ts uses for its content blob, with 96-bit IVs.
 */
import { fromBase64, toBase64 } from "../../src/kernel/base64";
import { normalizeHost } from "../../src/kernel/hostname";

export const PBKDF2_ITERATIONS = 600_000;
const IV_BYTES = 12;
const enc = new TextEncoder();
const dec = new TextDecoder();

export type VaultKeys = { vaultKey: CryptoKey; indexKey: CryptoKey };

/** The secret part of an entry: everything that V3 keeps out of the plaintext columns. */
export type EntrySecrets = { username: string; password: string; notes: string; category: string; totp: string };

export type Envelope = { wrapped_item_key: string; encrypted_data: string };

export type BlindIndexes = { name_hash: string; username_hash: string; domain_hash?: string; search_tokens: string[] };

export class DecryptionError extends Error {
  constructor() {
    super("This entry cannot be decrypted with the current vault key");
    this.name = "DecryptionError";
  }
}

const bytes = (s: string) => enc.encode(s);

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function joinIv(iv: Uint8Array, ct: ArrayBuffer): string {
  const out = new Uint8Array(IV_BYTES + ct.byteLength);
  out.set(iv);
  out.set(new Uint8Array(ct), IV_BYTES);
  return toBase64(out);
}

function splitIv(b64: string): { iv: Uint8Array<ArrayBuffer>; body: Uint8Array<ArrayBuffer> } {
  const all = fromBase64(b64);
  if (all.length <= IV_BYTES) throw new DecryptionError();
  return { iv: all.subarray(0, IV_BYTES), body: all.subarray(IV_BYTES) };
}

/**
 * The salt only has to be unique per user and the same on every device; the user id is both, and
 * needs no extra server state. Hashing gives it a fixed length and a domain label.
 */
async function saltFor(userId: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", bytes(`credential-vault/vault-salt/v1|${userId}`));
}

export async function deriveVaultKeys(passphrase: string, userId: string, iterations = PBKDF2_ITERATIONS): Promise<VaultKeys> {
  if (passphrase.length === 0) throw new Error("passphrase is empty");
  const base = await crypto.subtle.importKey("raw", bytes(passphrase.normalize("NFKC")), "PBKDF2", false, ["deriveBits"]);
  const root = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: await saltFor(userId), iterations }, base, 256);
  const hkdf = await crypto.subtle.importKey("raw", root, "HKDF", false, ["deriveKey"]);
  const info = (label: string) => ({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: bytes(`credential-vault/${label}/v1`) });
  const vaultKey = await crypto.subtle.deriveKey(info("vault-key"), hkdf, { name: "AES-GCM", length: 256 }, false, ["wrapKey", "unwrapKey"]);
  const indexKey = await crypto.subtle.deriveKey(info("blind-index"), hkdf, { name: "HMAC", hash: "SHA-256", length: 256 }, false, ["sign"]);
  return { vaultKey, indexKey };
}

/** An envelope: `plain` under a fresh item key, the item key wrapped by the vault key. */
async function sealEnvelope(keys: VaultKeys, plain: Uint8Array<ArrayBuffer>): Promise<Envelope> {
  const itemKey = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, ["encrypt", "decrypt"]);
  const dataIv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv: dataIv }, itemKey, plain);
  const wrapIv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const wrapped = await crypto.subtle.wrapKey("raw", itemKey, keys.vaultKey, { name: "AES-GCM", iv: wrapIv });
  return { wrapped_item_key: joinIv(wrapIv, wrapped), encrypted_data: joinIv(dataIv, data) };
}

/** The plaintext of an envelope; throws when the vault key or the data does not match. */
async function openEnvelope(keys: VaultKeys, envelope: Envelope): Promise<string> {
  const w = splitIv(envelope.wrapped_item_key);
  const itemKey = await crypto.subtle.unwrapKey("raw", w.body, keys.vaultKey, { name: "AES-GCM", iv: w.iv }, { name: "AES-GCM", length: 256 }, false, ["decrypt"]);
  const d = splitIv(envelope.encrypted_data);
  return dec.decode(await crypto.subtle.decrypt({ name: "AES-GCM", iv: d.iv }, itemKey, d.body));
}

export async function encryptEntry(keys: VaultKeys, secrets: EntrySecrets): Promise<Envelope> {
  return sealEnvelope(keys, bytes(JSON.stringify(secrets)));
}

function parseSecrets(json: string): EntrySecrets {
  const obj = JSON.parse(json) as Partial<Record<keyof EntrySecrets, unknown>>;
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  return { username: str(obj.username), password: str(obj.password), notes: str(obj.notes), category: str(obj.category), totp: str(obj.totp) };
}

export async function decryptEntry(keys: VaultKeys, envelope: Envelope): Promise<EntrySecrets> {
  try {
    return parseSecrets(await openEnvelope(keys, envelope));
  } catch {
    throw new DecryptionError();
  }
}

async function hmacHex(key: CryptoKey, label: string, value: string): Promise<string> {
  return hex(await crypto.subtle.sign("HMAC", key, bytes(`${label}|${value}`)));
}

/** Hostname without scheme, port, path or a leading www., lower case: what domain_hash covers. */
export function domainOf(website: string): string {
  return normalizeHost(website) ?? website.trim().toLowerCase();
}

const MIN_TOKEN = 2;
const MAX_WORD = 24;
const MAX_TOKENS = 300;

/** Lower-case words of letters and digits; a word also yields its prefixes, so "git" finds "github". */
export function plainTokens(text: string): string[] {
  const out = new Set<string>();
  for (const word of text.toLowerCase().normalize("NFKC").split(/[^\p{L}\p{N}]+/u)) {
    const w = word.slice(0, MAX_WORD);
    for (let n = MIN_TOKEN; n <= w.length; n++) out.add(w.slice(0, n));
  }
  return [...out];
}

/** Blind indexes as the server's V3 columns store them: hex HMAC-SHA256 under the index key. */
export async function blindIndexes(keys: VaultKeys, fields: { name: string; website: string; username: string }): Promise<BlindIndexes> {
  const domain = domainOf(fields.website);
  const words = plainTokens(`${fields.name} ${domain} ${fields.username}`).slice(0, MAX_TOKENS);
  return {
    name_hash: await hmacHex(keys.indexKey, "name", fields.name.trim().toLowerCase()),
    username_hash: await hmacHex(keys.indexKey, "username", fields.username.trim().toLowerCase()),
    ...(domain ? { domain_hash: await hmacHex(keys.indexKey, "domain", domain) } : {}),
    search_tokens: await Promise.all(words.map((w) => hmacHex(keys.indexKey, "token", w))),
  };
}

/** The query's words, hashed like search_tokens (whole words only: a query word is a prefix already). */
export async function queryTokens(keys: VaultKeys, query: string): Promise<string[]> {
  const words = query.toLowerCase().normalize("NFKC").split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= MIN_TOKEN).map((w) => w.slice(0, MAX_WORD));
  return Promise.all([...new Set(words)].map((w) => hmacHex(keys.indexKey, "token", w)));
}

const KEY_CHECK_TEXT = "credential-vault/key-check/v1";

/**
 * A value that proves a passphrase offline: an envelope (like an entry's) of a constant under a
 * fresh item key wrapped by the vault key. Only the right vault key unwraps it; it says nothing
 * about the passphrase beyond what any entry's envelope already does.
 */
export async function makeKeyCheck(keys: VaultKeys): Promise<Envelope> {
  return sealEnvelope(keys, bytes(KEY_CHECK_TEXT));
}

export async function keyCheckMatches(keys: VaultKeys, check: Envelope): Promise<boolean> {
  try {
    return (await openEnvelope(keys, check)) === KEY_CHECK_TEXT;
  } catch {
    return false;
  }
}

/**
 * Moves an item key from one vault key to another without touching encrypted_data: the item key is
 * unwrapped (extractable only for the moment it takes to wrap it again) under a fresh IV.
 */
async function extractableItemKey(keys: VaultKeys, wrappedItemKey: string): Promise<CryptoKey> {
  try {
    const w = splitIv(wrappedItemKey);
    return await crypto.subtle.unwrapKey("raw", w.body, keys.vaultKey, { name: "AES-GCM", iv: w.iv }, { name: "AES-GCM", length: 256 }, true, ["encrypt", "decrypt"]);
  } catch {
    throw new DecryptionError();
  }
}

export async function rewrapItemKey(from: VaultKeys, to: VaultKeys, wrappedItemKey: string): Promise<string> {
  const itemKey = await extractableItemKey(from, wrappedItemKey);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  return joinIv(iv, await crypto.subtle.wrapKey("raw", itemKey, to.vaultKey, { name: "AES-GCM", iv }));
}

/*
 * Sharing (issue 15). A user's sharing key is an ECDH P-256 pair; the private half is stored
 * wrapped by the vault key (server-side, as ciphertext, for the user's other devices). An item key
 * shared with someone is wrapped under a key agreed between a fresh ephemeral pair and their public
 * key (ECDH, then HKDF-SHA256), so only their private key opens it:
 *   wrapped_vault_key_invite = base64(ephemeral public key, raw 65 bytes || IV(12) || AES-GCM wrap)
 */
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
  return crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: bytes("credential-vault/share-wrap/v1") }, hkdf, { name: "AES-GCM", length: 256 }, false, [usage]);
}

/** The entry's item key (from its wrap under the vault key), wrapped for the recipient's public key. */
export async function wrapItemKeyFor(keys: VaultKeys, wrappedItemKey: string, recipient: SharingPublicJwk): Promise<string> {
  const itemKey = await extractableItemKey(keys, wrappedItemKey);
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
  const all = fromBase64(wrapped);
  if (all.length <= EPK_BYTES + IV_BYTES) throw new DecryptionError();
  const epk = await crypto.subtle.importKey("raw", all.subarray(0, EPK_BYTES), EC, false, []);
  const kek = await shareKek(privateKey, epk, "unwrapKey");
  const iv = all.subarray(EPK_BYTES, EPK_BYTES + IV_BYTES);
  return crypto.subtle.unwrapKey("raw", all.subarray(EPK_BYTES + IV_BYTES), kek, { name: "AES-GCM", iv }, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
}

/** A shared entry's secrets, opened with the recipient's private key. */
export async function openSharedEntry(privateKey: CryptoKey, wrappedForMe: string, encryptedData: string): Promise<EntrySecrets> {
  try {
    const itemKey = await unwrapSharedItemKey(privateKey, wrappedForMe);
    const d = splitIv(encryptedData);
    return parseSecrets(dec.decode(await crypto.subtle.decrypt({ name: "AES-GCM", iv: d.iv }, itemKey, d.body)));
  } catch {
    throw new DecryptionError();
  }
}

/** New encrypted_data for a shared entry under the same item key (a recipient with write permission). */
export async function sealSharedEntry(privateKey: CryptoKey, wrappedForMe: string, secrets: EntrySecrets): Promise<string> {
  const itemKey = await unwrapSharedItemKey(privateKey, wrappedForMe);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  return joinIv(iv, await crypto.subtle.encrypt({ name: "AES-GCM", iv }, itemKey, bytes(JSON.stringify(secrets))));
}
