/**
 * Envelopes bound to their place (docs/decisions/crypto.md, "Crypto: the clients hold against a malicious server"): an entry's ciphertext and its
 * item-key wrap carry AES-GCM associated data naming the entry id, the owner's user id, the
 * envelope version and the website host (and, from version 3, the scheme of its address), so a
 * server that serves one entry's blob under another entry, another user or another site, or turns
 * its https address into http, gets a failed tag instead of a wrong secret.
 *
 * Layout (base64 on the wire, as the server's columns require):
 *   encrypted_data   = MAGIC || IV(12) || AES-GCM(item key, payload, ad = data AD)
 *   wrapped_item_key = MAGIC || key version (u32) || KDF id (u8) || PBKDF2 rounds (u32) || IV(12)
 *                      || AES-GCM wrap(vault key, item key, ad = wrap AD || those 9 header bytes)
 * The header says which vault key and which derivation settings made the wrap; being in the AD,
 * it cannot be edited without the wrap failing. MAGIC names each part's version ("cv3:", or "cv2:"
 * for the version before the scheme was bound); each part opens with its own version's AD, so a
 * version-2 envelope still opens and any write seals version 3. The version is inside the AD too:
 * a magic changed to claim the other version fails the tag. Envelopes without MAGIC are version 1
 * (unbound, crypto.encryptLegacyEntry): read only to migrate them.
 */
import { fromBase64, toBase64 } from "../../src/kernel/base64";
import {
  DecryptionError,
  decryptLegacyEntry,
  domainOf,
  IV_BYTES,
  joinIv,
  keyIterations,
  keyVersion,
  legacyKeyCheckMatches,
  parseSecrets,
  serializeSecrets,
  splitIv,
  type EntrySecrets,
  type Envelope,
  type VaultKeys,
} from "./crypto";

export const ENVELOPE_VERSION = 3;
type Version = 2 | 3;
/** "cv3:" and "cv2:" — a legacy blob starts with a random IV, which begins like one of these once in 2^31. */
const MAGICS: Record<Version, Uint8Array> = {
  3: new Uint8Array([0x63, 0x76, 0x33, 0x3a]),
  2: new Uint8Array([0x63, 0x76, 0x32, 0x3a]),
};
const MAGIC = MAGICS[ENVELOPE_VERSION];
const MAGIC_BYTES = MAGIC.length;
const KDF_PBKDF2_SHA256 = 1;
const HEADER_BYTES = 9;
const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * Where an envelope belongs. `host` is the entry's website host as domainOf gives it ("" for none);
 * `scheme` the scheme its address names (schemeOf), bound from version 3 on.
 */
export type Place = { entryId: string; userId: string; host: string; scheme: string };

/** The scheme an address names, lower case ("https" of "HTTPS://x.test/"), or "" when it names none ("x.test"). */
export function schemeOf(address: string | null | undefined): string {
  return /^([a-z][a-z0-9+.-]*):\/\//i.exec((address ?? "").trim())?.[1]?.toLowerCase() ?? "";
}

/**
 * The scheme of an entry's address: its URL's, else its website's (the web client stores the
 * website as a bare host, so the URL is where a scheme is written; vault.ts seals the same
 * `url ?? website` as the payload's address).
 */
export const placeScheme = (e: { website?: string | null; url?: string | null }): string =>
  schemeOf(e.url || e.website || "");

export function placeOf(
  userId: string,
  e: { id: string; website?: string | null; url?: string | null },
): Place {
  return {
    entryId: e.id,
    userId,
    host: domainOf(e.website || e.url || ""),
    scheme: placeScheme(e),
  };
}

/** The envelope was made for another entry, user or website (or its bytes were changed). */
export class MisplacedEnvelopeError extends DecryptionError {
  constructor() {
    super(
      "This entry's encrypted data does not belong to this entry, account or website (the server may have moved it). It is not shown.",
    );
    this.name = "MisplacedEnvelopeError";
  }
}

/** A key wrap older than the vault key in use: a server replaying what preceded a passphrase change. */
export class KeyRollbackError extends DecryptionError {
  constructor(
    readonly offered: number,
    readonly known: number,
  ) {
    super(
      `The server offered an older vault key (version ${offered}) than this device has already seen (version ${known}). Refused.`,
    );
    this.name = "KeyRollbackError";
  }
}

/** A wrap under a newer vault key than this device holds: the passphrase was changed elsewhere. */
export class NewerKeyError extends DecryptionError {
  constructor(readonly offered: number) {
    super(
      `This entry is under a newer vault key (version ${offered}): the master passphrase was changed on another device. Sign in again with the new one.`,
    );
    this.name = "NewerKeyError";
  }
}

/** An unbound (version 1) envelope after this device saw the vault fully bound. */
export class LegacyRefusedError extends DecryptionError {
  constructor() {
    super(
      "This entry came in the old, unbound format, which this vault no longer uses on this device. It is not shown.",
    );
    this.name = "LegacyRefusedError";
  }
}

export type WrapHeader = { keyVersion: number; iterations: number };

/** The version a part's magic names, or null for none (an unbound part). */
function versionOf(all: Uint8Array): Version | null {
  if (all.length <= MAGIC_BYTES) return null;
  for (const v of [3, 2] as const) if (MAGICS[v].every((b, i) => all[i] === b)) return v;
  return null;
}
const hasMagic = (all: Uint8Array) => versionOf(all) !== null;

/** Whether an envelope is bound (version 2 or 3); unbound ones are version 1. */
export function isBound(env: Envelope): boolean {
  return hasMagic(leadingBytes(env.wrapped_item_key)) && hasMagic(leadingBytes(env.encrypted_data));
}

/**
 * Whether an envelope binds its address's scheme (either part version 3). Read from the magic,
 * which is trustworthy once the envelope opened in its place: the version is in each part's AD.
 */
export function bindsScheme(env: Envelope): boolean {
  return (
    versionOf(leadingBytes(env.wrapped_item_key)) === 3 ||
    versionOf(leadingBytes(env.encrypted_data)) === 3
  );
}

/**
 * The first bytes of a base64 text, enough for the magic: every four characters are three bytes on
 * their own, so a prefix decodes alone. A paint checks every entry of the vault, and decoding each
 * whole envelope (a note's can be many KiB) was over a second at 10,000 entries.
 */
function leadingBytes(b64: string): Uint8Array {
  return quickLeadingBytes(b64) ?? fromBase64(b64.slice(0, LEADING_CHARS));
}

const LEADING_CHARS = 4 * Math.ceil((MAGIC_BYTES + 1) / 3);
/** Each base64 character's six bits, for both alphabets (RFC 4648 §4 and §5); -1 for any other. */
const SIXTETS = (() => {
  const t = new Int8Array(128).fill(-1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < 64; i++) t[alphabet.charCodeAt(i)] = i;
  t[45] = 62; // "-"
  t[95] = 63; // "_"
  return t;
})();

/**
 * The leading bytes decoded by hand (no regular expressions, no `atob`, no copies): a paint after
 * a first sync asks it twice per entry, and the general decoder's set-up was most of its cost.
 * Null when those characters are not all plain base64 (padding, a short text): the general
 * decoder then answers exactly as before.
 */
function quickLeadingBytes(b64: string): Uint8Array | null {
  if (b64.length < LEADING_CHARS) return null;
  const out = new Uint8Array((LEADING_CHARS / 4) * 3);
  for (let g = 0; g < LEADING_CHARS / 4; g++) {
    let bits = 0;
    for (let k = 0; k < 4; k++) {
      const c = b64.charCodeAt(g * 4 + k);
      const v = c < 128 ? SIXTETS[c]! : -1;
      if (v < 0) return null;
      bits = (bits << 6) | v;
    }
    out[g * 3] = bits >>> 16;
    out[g * 3 + 1] = (bits >>> 8) & 0xff;
    out[g * 3 + 2] = bits & 0xff;
  }
  return out;
}

/** The header of a bound wrap (still unauthenticated: the wrap's tag covers it once opened). */
export function wrapHeader(wrappedItemKey: string): WrapHeader | null {
  const all = fromBase64(wrappedItemKey);
  if (!hasMagic(all) || all.length < MAGIC_BYTES + HEADER_BYTES + IV_BYTES + 1) return null;
  const view = new DataView(all.buffer, all.byteOffset + MAGIC_BYTES, HEADER_BYTES);
  if (view.getUint8(4) !== KDF_PBKDF2_SHA256) return null;
  return { keyVersion: view.getUint32(0), iterations: view.getUint32(5) };
}

function headerBytes(keys: VaultKeys): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(HEADER_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(0, keyVersion(keys));
  view.setUint8(4, KDF_PBKDF2_SHA256);
  view.setUint32(5, keyIterations(keys));
  return out;
}

/** JSON arrays: no separator inside an id, host or scheme can shift one field into the next. */
const placeAd = (label: string, p: Place, v: Version) =>
  enc.encode(
    JSON.stringify(
      v === 2
        ? [label, 2, p.userId, p.entryId, p.host]
        : [label, 3, p.userId, p.entryId, p.host, p.scheme],
    ),
  );
const dataAd = (p: Place, v: Version) => placeAd("credential-vault/entry-data", p, v);

function wrapAd(p: Place, header: Uint8Array, v: Version): Uint8Array<ArrayBuffer> {
  const label = placeAd("credential-vault/item-key", p, v);
  const out = new Uint8Array(label.length + header.length);
  out.set(label);
  out.set(header, label.length);
  return out;
}

const withMagic = (b64: string) => {
  const body = fromBase64(b64);
  const out = new Uint8Array(MAGIC_BYTES + body.length);
  out.set(MAGIC);
  out.set(body, MAGIC_BYTES);
  return toBase64(out);
};

const withoutMagic = (all: Uint8Array) => toBase64(all.subarray(MAGIC_BYTES));

async function wrapFor(keys: VaultKeys, place: Place, itemKey: CryptoKey): Promise<string> {
  const header = headerBytes(keys);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const wrapped = await crypto.subtle.wrapKey("raw", itemKey, keys.vaultKey, {
    name: "AES-GCM",
    iv,
    additionalData: wrapAd(place, header, ENVELOPE_VERSION),
  });
  const body = fromBase64(joinIv(iv, wrapped));
  const out = new Uint8Array(MAGIC_BYTES + HEADER_BYTES + body.length);
  out.set(MAGIC);
  out.set(header, MAGIC_BYTES);
  out.set(body, MAGIC_BYTES + HEADER_BYTES);
  return toBase64(out);
}

async function unwrapFor(
  keys: VaultKeys,
  place: Place,
  wrappedItemKey: string,
  extractable: boolean,
): Promise<CryptoKey> {
  const header = wrapHeader(wrappedItemKey);
  if (!header) throw new MisplacedEnvelopeError();
  if (header.keyVersion < keyVersion(keys))
    throw new KeyRollbackError(header.keyVersion, keyVersion(keys));
  if (header.keyVersion > keyVersion(keys)) throw new NewerKeyError(header.keyVersion);
  const all = fromBase64(wrappedItemKey);
  const w = splitIv(toBase64(all.subarray(MAGIC_BYTES + HEADER_BYTES)));
  try {
    return await crypto.subtle.unwrapKey(
      "raw",
      w.body,
      keys.vaultKey,
      {
        name: "AES-GCM",
        iv: w.iv,
        additionalData: wrapAd(
          place,
          all.subarray(MAGIC_BYTES, MAGIC_BYTES + HEADER_BYTES),
          versionOf(all)!,
        ),
      },
      { name: "AES-GCM", length: 256 },
      extractable,
      ["encrypt", "decrypt"],
    );
  } catch {
    // Same key version, so the vault key is the right one: what differs is the place.
    throw new MisplacedEnvelopeError();
  }
}

async function seal(
  keys: VaultKeys,
  place: Place,
  plain: Uint8Array<ArrayBuffer>,
): Promise<Envelope> {
  const itemKey = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, [
    "encrypt",
    "decrypt",
  ]);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: dataAd(place, ENVELOPE_VERSION) },
    itemKey,
    plain,
  );
  return {
    wrapped_item_key: await wrapFor(keys, place, itemKey),
    encrypted_data: withMagic(joinIv(iv, data)),
  };
}

/** encrypted_data opened under its item key, with the AD of the version its magic names. */
async function openData(itemKey: CryptoKey, place: Place, encryptedData: string): Promise<string> {
  const all = fromBase64(encryptedData);
  const v = versionOf(all);
  if (!v) throw new MisplacedEnvelopeError();
  const d = splitIv(withoutMagic(all));
  try {
    return dec.decode(
      await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: d.iv, additionalData: dataAd(place, v) },
        itemKey,
        d.body,
      ),
    );
  } catch {
    throw new MisplacedEnvelopeError();
  }
}

async function open(keys: VaultKeys, place: Place, env: Envelope): Promise<string> {
  return openData(
    await unwrapFor(keys, place, env.wrapped_item_key, false),
    place,
    env.encrypted_data,
  );
}

/** A value of the page's own (not an entry: a place no entry id can take), sealed as JSON. */
export function sealValue(keys: VaultKeys, place: Place, value: unknown): Promise<Envelope> {
  return seal(keys, place, enc.encode(JSON.stringify(value)));
}

export async function openValue(keys: VaultKeys, place: Place, env: Envelope): Promise<unknown> {
  return JSON.parse(await open(keys, place, env));
}

export function sealEntry(keys: VaultKeys, place: Place, secrets: EntrySecrets): Promise<Envelope> {
  return seal(keys, place, enc.encode(serializeSecrets(secrets)));
}

export type Opened = { secrets: EntrySecrets; legacy: boolean };

/**
 * Opens an entry's envelope in its place. An unbound (version 1) envelope opens only while
 * `allowLegacy` holds (the device has not yet seen this vault fully migrated); the caller then
 * re-seals it. Throws a DecryptionError whose message says why the entry is not shown.
 */
export async function openEntry(
  keys: VaultKeys,
  place: Place,
  env: Envelope,
  opts: { allowLegacy?: boolean } = {},
): Promise<Opened> {
  if (isBound(env)) return { secrets: parseSecrets(await open(keys, place, env)), legacy: false };
  if (wrapHeader(env.wrapped_item_key) || hasMagic(fromBase64(env.encrypted_data)))
    throw new MisplacedEnvelopeError();
  if (!opts.allowLegacy) throw new LegacyRefusedError();
  return { secrets: await decryptLegacyEntry(keys, env), legacy: true };
}

/**
 * Moves a bound item key to another vault key (a passphrase change) without touching
 * encrypted_data: the item key is extractable only for the moment it takes to wrap it again.
 */
export async function rewrapItemKey(
  from: VaultKeys,
  to: VaultKeys,
  place: Place,
  wrappedItemKey: string,
): Promise<string> {
  return wrapFor(to, place, await unwrapFor(from, place, wrappedItemKey, true));
}

const KEY_CHECK_TEXT = "credential-vault/key-check/v2";
const keyCheckPlace = (userId: string): Place => ({
  entryId: "key-check",
  userId,
  host: "",
  scheme: "",
});

/**
 * A value that proves a passphrase offline: a bound envelope of a constant. Its header records the
 * key version and rounds, so unlocking derives exactly the key in use.
 */
export function makeKeyCheck(keys: VaultKeys, userId: string): Promise<Envelope> {
  return seal(keys, keyCheckPlace(userId), enc.encode(KEY_CHECK_TEXT));
}

export async function keyCheckMatches(
  keys: VaultKeys,
  userId: string,
  check: Envelope,
): Promise<boolean> {
  if (!isBound(check)) return legacyKeyCheckMatches(keys, check);
  try {
    return (await open(keys, keyCheckPlace(userId), check)) === KEY_CHECK_TEXT;
  } catch {
    return false;
  }
}

/**
 * An entry's item key, extractable: for wrapping it to a share recipient. Only bound envelopes are
 * shared (unbound ones are re-sealed at unlock first), so the recipient can check the place too.
 */
export async function extractableItemKey(
  keys: VaultKeys,
  place: Place,
  wrappedItemKey: string,
): Promise<CryptoKey> {
  if (!wrapHeader(wrappedItemKey)) throw new LegacyRefusedError();
  return unwrapFor(keys, place, wrappedItemKey, true);
}

/** A shared entry's secrets, opened with the item key its share carries, in the owner's place. */
export async function openDataWith(
  itemKey: CryptoKey,
  place: Place,
  encryptedData: string,
): Promise<EntrySecrets> {
  return parseSecrets(await openData(itemKey, place, encryptedData));
}

/** New encrypted_data for a shared entry under its item key, bound to the owner's place. */
export async function sealDataWith(
  itemKey: CryptoKey,
  place: Place,
  secrets: EntrySecrets,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  return withMagic(
    joinIv(
      iv,
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: dataAd(place, ENVELOPE_VERSION) },
        itemKey,
        enc.encode(serializeSecrets(secrets)),
      ),
    ),
  );
}
