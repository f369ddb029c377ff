/**
 * Client-side vault crypto (spec "Password entry", V3), Web Crypto only.
 *
 * Master passphrase -> PBKDF2-SHA256 (600,000 iterations, salt bound to the user id) -> 256-bit
 * root -> HKDF-SHA256 into two independent keys: the vault key (AES-256-GCM, wraps item keys) and
 * the index key (HMAC-SHA256, blind indexes). Both are non-extractable.
 *
 * Each entry has its own random AES-256-GCM item key. encrypted_data is base64(IV || ciphertext+tag)
 * of the JSON payload under the item key; wrapped_item_key is base64(IV || wrapped key) under the
 * vault key: the layout core/crypto/attachments.ts uses for its content blob, with 96-bit IVs.
 */
import { fromBase64, toBase64 } from "../../src/kernel/base64";
import { normalizeHost } from "../../src/kernel/hostname";
import { MODEL_KEYS, parseModel, type EntryModel, type PastPassword } from "../entry";
import { parsePasskeys, type StoredPasskey } from "../passkeys";

export const PBKDF2_ITERATIONS = 600_000;
/**
 * What the client accepts from the vault's own headers (core/crypto/envelope.ts): a server could
 * otherwise hand a new device weak settings (a cheap offline guess of the passphrase from any
 * envelope made under them) or absurd ones (a device that hangs deriving).
 */
export const KDF_FLOOR = PBKDF2_ITERATIONS;
export const KDF_CEILING = 10_000_000;
export const IV_BYTES = 12;
const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * `version` counts passphrase changes (1 for the first key); `iterations` are the PBKDF2 rounds it
 * was derived with. Both travel in every key wrap (envelope.ts) so another device derives alike.
 * Keys stored before these fields existed have neither: version 1 at the default rounds.
 */
export type VaultKeys = {
  vaultKey: CryptoKey;
  indexKey: CryptoKey;
  version?: number;
  iterations?: number;
};

export const keyVersion = (keys: VaultKeys) => keys.version ?? 1;
export const keyIterations = (keys: VaultKeys) => keys.iterations ?? PBKDF2_ITERATIONS;

/** The secret part of an entry: everything that V3 keeps out of the plaintext columns. */
/**
 * An entry's sealed payload. `address` is the address it was saved for (its URL, else its website)
 * inside the ciphertext, so that what fills it (the extension) can take the scheme from there: the
 * server's plaintext URL could turn an https entry into an http one. Entries sealed before it
 * existed have none.
 */
/**
 * An entry's sealed payload. `favorite` and `folder` (the folder's name) are organisation, sealed
 * with the secrets so the server never learns them (docs/decisions/vault.md, "Vault: favourites and
 * folders"); both are left out of the payload when unset.
 */
export type { PastPassword };

/**
 * What an entry's envelope holds. `password_changed_at` (when the current password was set) and
 * `password_history` (the previous ones, newest first) travel only inside the encryption.
 */
export type EntrySecrets = {
  username: string;
  password: string;
  notes: string;
  category: string;
  totp: string;
  address?: string;
  favorite?: boolean;
  folder?: string;
  password_changed_at?: string;
  password_history?: PastPassword[];
  /** Passkeys (WebAuthn credentials, private keys included): core/passkeys/stored.ts. */
  passkeys?: StoredPasskey[];
  /**
   * Payload keys this client does not know, as another (newer) client sealed them: carried
   * through every re-seal so an older client's edit never strips a newer one's fields.
   */
  extra?: Record<string, unknown>;
} & EntryModel;

const KNOWN_KEYS = new Set<string>([
  "username",
  "password",
  "notes",
  "category",
  "totp",
  "address",
  "favorite",
  "folder",
  "password_changed_at",
  "password_history",
  "passkeys",
  ...MODEL_KEYS,
]);

/** The payload's JSON: the unknown keys carried back to the top level, under the known ones. */
export function serializeSecrets(secrets: EntrySecrets): string {
  const { extra, ...known } = secrets;
  return JSON.stringify({ ...extra, ...known });
}

export type Envelope = { wrapped_item_key: string; encrypted_data: string };

export type BlindIndexes = {
  name_hash: string;
  username_hash: string;
  domain_hash?: string;
  search_tokens: string[];
};

export class DecryptionError extends Error {
  constructor(message = "This entry cannot be decrypted with the current vault key") {
    super(message);
    this.name = "DecryptionError";
  }
}

/** Key-derivation settings from the server below the floor (or above the ceiling): never used. */
export class KdfRefusedError extends Error {
  constructor(iterations: number) {
    super(
      iterations < KDF_FLOOR
        ? `The server asked for weaker key derivation (PBKDF2 with ${iterations} rounds) than this app allows (${KDF_FLOOR}). Nothing was derived or sent.`
        : `The server asked for ${iterations} PBKDF2 rounds, more than this app accepts (${KDF_CEILING}).`,
    );
    this.name = "KdfRefusedError";
  }
}

export function acceptKdf(iterations: number): number {
  if (!Number.isSafeInteger(iterations) || iterations < KDF_FLOOR || iterations > KDF_CEILING)
    throw new KdfRefusedError(iterations);
  return iterations;
}

const bytes = (s: string) => enc.encode(s);

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function joinIv(iv: Uint8Array, ct: ArrayBuffer): string {
  const out = new Uint8Array(IV_BYTES + ct.byteLength);
  out.set(iv);
  out.set(new Uint8Array(ct), IV_BYTES);
  return toBase64(out);
}

export function splitIv(b64: string): {
  iv: Uint8Array<ArrayBuffer>;
  body: Uint8Array<ArrayBuffer>;
} {
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

/** `iterations` below the floor only in unit tests; settings read from the server go through acceptKdf. */
export function deriveVaultKeys(
  passphrase: string,
  userId: string,
  iterations = PBKDF2_ITERATIONS,
  version = 1,
): Promise<VaultKeys> {
  return derive(passphrase, userId, iterations, version, false);
}

/**
 * The same keys with an extractable vault key: only for wrapping the vault key itself for an
 * emergency contact or a dead man's switch recipient (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people"). The key in
 * memory stays non-extractable; the caller checks this copy against the key check before use.
 */
export function deriveExtractableVaultKey(
  passphrase: string,
  userId: string,
  iterations: number,
  version: number,
): Promise<VaultKeys> {
  return derive(passphrase, userId, iterations, version, true);
}

/**
 * The passphrase's root as an HKDF key: the one PBKDF2 run every key below the passphrase comes
 * from (the passphrase-derived vault and index keys, the account key's key encryption key in
 * account-key.ts). Non-extractable; derived keys may be.
 */
export async function passphraseRoot(
  passphrase: string,
  userId: string,
  iterations: number,
): Promise<CryptoKey> {
  if (passphrase.length === 0) throw new Error("passphrase is empty");
  const base = await crypto.subtle.importKey(
    "raw",
    bytes(passphrase.normalize("NFKC")),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const root = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: await saltFor(userId), iterations },
    base,
    256,
  );
  return crypto.subtle.importKey("raw", root, "HKDF", false, ["deriveKey"]);
}

/** HKDF-SHA256 from the root, salt 32 zero bytes, info `credential-vault/<label>/v1`. */
export const rootInfo = (label: string) => ({
  name: "HKDF",
  hash: "SHA-256",
  salt: new Uint8Array(32),
  info: bytes(`credential-vault/${label}/v1`),
});

/** The vault and index keys the passphrase itself gives (before the account key, and still its bytes for accounts moved over). */
export async function rootVaultKeys(
  root: CryptoKey,
  iterations: number,
  version: number,
  extractable: { vault?: boolean; index?: boolean } = {},
): Promise<VaultKeys> {
  const vaultKey = await crypto.subtle.deriveKey(
    rootInfo("vault-key"),
    root,
    { name: "AES-GCM", length: 256 },
    extractable.vault === true,
    ["wrapKey", "unwrapKey"],
  );
  const indexKey = await crypto.subtle.deriveKey(
    rootInfo("blind-index"),
    root,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    extractable.index === true,
    ["sign"],
  );
  return { vaultKey, indexKey, version, iterations };
}

async function derive(
  passphrase: string,
  userId: string,
  iterations: number,
  version: number,
  extractable: boolean,
): Promise<VaultKeys> {
  // Only the vault key is ever wrapped for a contact: the index key stays non-extractable.
  return rootVaultKeys(await passphraseRoot(passphrase, userId, iterations), iterations, version, {
    vault: extractable,
  });
}

/**
 * Version 1 envelopes (unbound: no associated data). New entries are sealed by envelope.ts; these
 * are read only to migrate entries made before it, and made only by tests that need such entries.
 */
async function sealEnvelope(keys: VaultKeys, plain: Uint8Array<ArrayBuffer>): Promise<Envelope> {
  const itemKey = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, [
    "encrypt",
    "decrypt",
  ]);
  const dataIv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv: dataIv }, itemKey, plain);
  const wrapIv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const wrapped = await crypto.subtle.wrapKey("raw", itemKey, keys.vaultKey, {
    name: "AES-GCM",
    iv: wrapIv,
  });
  return { wrapped_item_key: joinIv(wrapIv, wrapped), encrypted_data: joinIv(dataIv, data) };
}

async function openEnvelope(keys: VaultKeys, envelope: Envelope): Promise<string> {
  const w = splitIv(envelope.wrapped_item_key);
  const itemKey = await crypto.subtle.unwrapKey(
    "raw",
    w.body,
    keys.vaultKey,
    { name: "AES-GCM", iv: w.iv },
    { name: "AES-GCM", length: 256 },
    false,
    ["decrypt"],
  );
  const d = splitIv(envelope.encrypted_data);
  return dec.decode(await crypto.subtle.decrypt({ name: "AES-GCM", iv: d.iv }, itemKey, d.body));
}

export async function encryptLegacyEntry(
  keys: VaultKeys,
  secrets: EntrySecrets,
): Promise<Envelope> {
  return sealEnvelope(keys, bytes(serializeSecrets(secrets)));
}

/** An entry's payload; fields missing or of another type read as "", unknown ones kept in `extra`. */
export function parseSecrets(json: string): EntrySecrets {
  let obj: Partial<Record<keyof EntrySecrets, unknown>>;
  try {
    obj = JSON.parse(json) as typeof obj;
  } catch {
    throw new DecryptionError();
  }
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) throw new DecryptionError();
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const secrets: EntrySecrets = {
    username: str(obj.username),
    password: str(obj.password),
    notes: str(obj.notes),
    category: str(obj.category),
    totp: str(obj.totp),
  };
  if (typeof obj.address === "string") secrets.address = obj.address;
  if (obj.favorite === true) secrets.favorite = true;
  if (typeof obj.folder === "string" && obj.folder.trim()) secrets.folder = obj.folder.trim();
  if (
    typeof obj.password_changed_at === "string" &&
    !Number.isNaN(Date.parse(obj.password_changed_at))
  )
    secrets.password_changed_at = obj.password_changed_at;
  if (Array.isArray(obj.password_history)) {
    const past = (obj.password_history as unknown[]).filter(
      (p): p is PastPassword =>
        !!p &&
        typeof (p as PastPassword).password === "string" &&
        typeof (p as PastPassword).changed_at === "string",
    );
    if (past.length)
      secrets.password_history = past.map((p) => ({
        password: p.password,
        changed_at: p.changed_at,
      }));
  }
  const passkeys = parsePasskeys(obj.passkeys);
  if (passkeys.length) secrets.passkeys = passkeys;
  Object.assign(secrets, parseModel(obj as Record<string, unknown>));
  const extra = Object.entries(obj).filter(([k]) => !KNOWN_KEYS.has(k));
  if (extra.length) secrets.extra = Object.fromEntries(extra);
  return secrets;
}

export async function decryptLegacyEntry(
  keys: VaultKeys,
  envelope: Envelope,
): Promise<EntrySecrets> {
  let json: string;
  try {
    json = await openEnvelope(keys, envelope);
  } catch {
    throw new DecryptionError();
  }
  return parseSecrets(json);
}

async function hmacHex(key: CryptoKey, label: string, value: string): Promise<string> {
  return hex(await crypto.subtle.sign("HMAC", key, bytes(`${label}|${value}`)));
}

/** A normalised host's blind index, as `domain_hash` and the extra addresses' `host_hashes` store it. */
export const domainHash = (keys: VaultKeys, host: string): Promise<string> =>
  hmacHex(keys.indexKey, "domain", host);

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
  for (const word of text
    .toLowerCase()
    .normalize("NFKC")
    .split(/[^\p{L}\p{N}]+/u)) {
    const w = word.slice(0, MAX_WORD);
    for (let n = MIN_TOKEN; n <= w.length; n++) out.add(w.slice(0, n));
  }
  return [...out];
}

/** Blind indexes as the server's V3 columns store them: hex HMAC-SHA256 under the index key. */
export async function blindIndexes(
  keys: VaultKeys,
  fields: { name: string; website: string; username: string },
): Promise<BlindIndexes> {
  const domain = domainOf(fields.website);
  const words = plainTokens(`${fields.name} ${domain} ${fields.username}`).slice(0, MAX_TOKENS);
  return {
    name_hash: await hmacHex(keys.indexKey, "name", fields.name.trim().toLowerCase()),
    username_hash: await hmacHex(keys.indexKey, "username", fields.username.trim().toLowerCase()),
    ...(domain ? { domain_hash: await domainHash(keys, domain) } : {}),
    search_tokens: await Promise.all(words.map((w) => hmacHex(keys.indexKey, "token", w))),
  };
}

/** The query's words, hashed like search_tokens (whole words only: a query word is a prefix already). */
export async function queryTokens(keys: VaultKeys, query: string): Promise<string[]> {
  const words = query
    .toLowerCase()
    .normalize("NFKC")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= MIN_TOKEN)
    .map((w) => w.slice(0, MAX_WORD));
  return Promise.all([...new Set(words)].map((w) => hmacHex(keys.indexKey, "token", w)));
}

const KEY_CHECK_TEXT = "credential-vault/key-check/v1";

/** A key check stored by a version 1 client (unbound); envelope.ts makes and reads the current ones. */
export async function legacyKeyCheckMatches(keys: VaultKeys, check: Envelope): Promise<boolean> {
  try {
    return (await openEnvelope(keys, check)) === KEY_CHECK_TEXT;
  } catch {
    return false;
  }
}
