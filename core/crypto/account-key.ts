/**
 * The account key (docs/crypto.md, "Key hierarchy"; docs/decisions/crypto.md, "Crypto: an account
 * key between the passphrase and the vault"): 64 bytes, the vault key (AES-256-GCM, wraps item
 * keys) followed by the index key (HMAC-SHA256, blind indexes). The passphrase no longer is the
 * vault key: it derives a key encryption key that wraps the account key, and the server keeps the
 * wrap. A passphrase change wraps the same 64 bytes again; another wrap (a passkey, an approved
 * device) can hold them too.
 *
 *   wrapped_key = base64( "ak1:" || IV(12) || AES-GCM(KEK, account key, AD) )
 *   AD = JSON ["credential-vault/account-key", 1, userId, key_version, kdf_iterations, revision]
 *
 * The AD binds the wrap to its user, its key version, its rounds and its revision: a server that
 * serves another user's wrap, relabels one, or replays an older one (a lower revision than this
 * device has seen) is refused.
 */
import { fromBase64, toBase64 } from "../../src/kernel/base64";
import {
  acceptKdf,
  DecryptionError,
  IV_BYTES,
  keyIterations,
  keyVersion,
  passphraseRoot,
  rootInfo,
  rootVaultKeys,
  type VaultKeys,
} from "./crypto";

export const ACCOUNT_KEY_BYTES = 64;
const MAGIC = new Uint8Array([0x61, 0x6b, 0x31, 0x3a]); // "ak1:"
const enc = new TextEncoder();

/** What the server stores (PUT/GET /api/account-key). */
export type AccountKeyWrap = {
  key_version: number;
  revision: number;
  kdf_iterations: number;
  wrapped_key: string;
};
/** What this device has seen: a wrap below either is a replay. Revision 0: never saw one. */
export type KeyFloor = { keyVersion: number; revision: number };

/** The wrap does not open under this passphrase for this user (wrong passphrase, or not their wrap). */
export class AccountKeyError extends DecryptionError {
  constructor() {
    super("This passphrase does not open the vault");
    this.name = "AccountKeyError";
  }
}

/** The server offered an older wrap than this device has seen, or none after it saw one. */
export class AccountKeyRollbackError extends DecryptionError {
  constructor(what: string) {
    super(`The server ${what}. Refused: nothing was opened.`);
    this.name = "AccountKeyRollbackError";
  }
}

/** The key encryption key: HKDF of the passphrase's root with its own info string. */
export function kekOf(root: CryptoKey): Promise<CryptoKey> {
  return crypto.subtle.deriveKey(
    rootInfo("key-encryption-key"),
    root,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

const wrapAd = (userId: string, w: Omit<AccountKeyWrap, "wrapped_key">) =>
  enc.encode(
    JSON.stringify([
      "credential-vault/account-key",
      1,
      userId,
      w.key_version,
      w.kdf_iterations,
      w.revision,
    ]),
  );

export async function sealAccountKey(
  kek: CryptoKey,
  raw: Uint8Array,
  userId: string,
  meta: Omit<AccountKeyWrap, "wrapped_key">,
): Promise<AccountKeyWrap> {
  if (raw.length !== ACCOUNT_KEY_BYTES) throw new Error("an account key is 64 bytes");
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: wrapAd(userId, meta) },
      kek,
      raw as Uint8Array<ArrayBuffer>,
    ),
  );
  const out = new Uint8Array(MAGIC.length + IV_BYTES + ct.length);
  out.set(MAGIC);
  out.set(iv, MAGIC.length);
  out.set(ct, MAGIC.length + IV_BYTES);
  return {
    key_version: meta.key_version,
    revision: meta.revision,
    kdf_iterations: meta.kdf_iterations,
    wrapped_key: toBase64(out),
  };
}

/** The account key's 64 bytes; AccountKeyError when the wrap is not this user's under this KEK. */
export async function openAccountKey(
  kek: CryptoKey,
  userId: string,
  wrap: AccountKeyWrap,
): Promise<Uint8Array> {
  let all: Uint8Array<ArrayBuffer>;
  try {
    all = fromBase64(wrap.wrapped_key);
  } catch {
    throw new AccountKeyError();
  }
  if (all.length <= MAGIC.length + IV_BYTES || !MAGIC.every((b, i) => all[i] === b))
    throw new AccountKeyError();
  try {
    const raw = new Uint8Array(
      await crypto.subtle.decrypt(
        {
          name: "AES-GCM",
          iv: all.subarray(MAGIC.length, MAGIC.length + IV_BYTES),
          additionalData: wrapAd(userId, wrap),
        },
        kek,
        all.subarray(MAGIC.length + IV_BYTES),
      ),
    );
    if (raw.length !== ACCOUNT_KEY_BYTES) throw new AccountKeyError();
    return raw;
  } catch {
    throw new AccountKeyError();
  }
}

/** The vault and index keys of an account key (only the vault key may be made extractable: for a contact's wrap). */
export async function accountVaultKeys(
  raw: Uint8Array,
  version: number,
  iterations: number,
  extractableVault = false,
): Promise<VaultKeys> {
  const vaultKey = await crypto.subtle.importKey(
    "raw",
    raw.slice(0, 32),
    { name: "AES-GCM", length: 256 },
    extractableVault,
    ["wrapKey", "unwrapKey"],
  );
  const indexKey = await crypto.subtle.importKey(
    "raw",
    raw.slice(32, 64),
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
  return { vaultKey, indexKey, version, iterations };
}

/**
 * The account key of a vault from before it: the passphrase-derived vault and index keys' own
 * bytes, so no entry has to be sealed again and every device still holding those keys stays right.
 */
export async function rootAccountKey(root: CryptoKey): Promise<Uint8Array> {
  const keys = await rootVaultKeys(root, 0, 0, { vault: true, index: true });
  const out = new Uint8Array(ACCOUNT_KEY_BYTES);
  out.set(new Uint8Array(await crypto.subtle.exportKey("raw", keys.vaultKey)));
  out.set(new Uint8Array(await crypto.subtle.exportKey("raw", keys.indexKey)), 32);
  return out;
}

/** Refuses a wrap below what this device has seen, and rounds outside the accepted range. */
export function checkWrap(wrap: AccountKeyWrap, floor: KeyFloor): void {
  if (wrap.revision < floor.revision)
    throw new AccountKeyRollbackError(
      `offered an older account key wrap (revision ${wrap.revision}) than this device has seen (revision ${floor.revision})`,
    );
  if (wrap.key_version < floor.keyVersion)
    throw new AccountKeyRollbackError(
      `offered an older account key (version ${wrap.key_version}) than this device has seen (version ${floor.keyVersion})`,
    );
  acceptKdf(wrap.kdf_iterations);
}

/** The passphrase's root per rounds, derived once each (PBKDF2 is the slow step). */
export type RootFor = (iterations: number) => Promise<CryptoKey>;
export function rootsOf(
  passphrase: string,
  userId: string,
  seed?: { iterations: number; root: Promise<CryptoKey> },
): RootFor {
  const roots = new Map<number, Promise<CryptoKey>>();
  if (seed) roots.set(seed.iterations, seed.root);
  return (iterations) => {
    let r = roots.get(iterations);
    if (!r) {
      r = passphraseRoot(passphrase, userId, iterations);
      roots.set(iterations, r);
    }
    return r;
  };
}

/** The server's side of the wrap: `put` answers the stored wrap or "conflict", and throws when the outcome is unknown. */
export type AccountKeyIo = {
  get(): Promise<AccountKeyWrap | null>;
  put(w: AccountKeyWrap): Promise<AccountKeyWrap | "conflict">;
};

/**
 * How the vault opened: with its wrap ("opened"), by writing the first wrap of a vault with
 * entries ("migrated") or with none yet ("created"), by writing the next wrap after a re-key made
 * elsewhere ("healed"), or with the passphrase-derived keys alone because the wrap could not be
 * written now ("legacy": the next unlock moves it).
 */
export type Step = "opened" | "migrated" | "created" | "healed" | "legacy";
export type OpenedAccount = { keys: VaultKeys; wrap: AccountKeyWrap | null; step: Step };

export type UnlockOptions = {
  io: AccountKeyIo;
  userId: string;
  floor: KeyFloor;
  roots: RootFor;
  /**
   * The keys the passphrase itself derives, checked against the vault as before the account key
   * (the newest bound entry must open in its place); `empty` when the vault had nothing to check.
   * Throws a DecryptionError for a passphrase that does not open it.
   */
  legacy: (roots: RootFor) => Promise<{ keys: VaultKeys; empty: boolean }>;
  /** Called once a wrap is on the server, before anything is recorded on this device (tests cut here). */
  written?: (wrap: AccountKeyWrap) => void | Promise<void>;
};

/**
 * Opens the account with the passphrase: its wrap when the server has one; else the vault as
 * before, and then the first wrap is written (the vault's key keeps its bytes, so nothing is
 * sealed again and a cut anywhere leaves it opening as before). Every step is resumable: the server's
 * compare-and-set lets one device write a revision, and the others open what it wrote.
 */
export async function unlockAccount(o: UnlockOptions): Promise<OpenedAccount> {
  const wrap = await o.io.get();
  if (wrap) {
    checkWrap(wrap, o.floor);
    try {
      return await opened(o, wrap);
    } catch (e) {
      if (!(e instanceof AccountKeyError)) throw e;
    }
    // Not this passphrase's wrap: a wrong passphrase, or the vault was re-keyed by a passphrase
    // change made offline whose device has not written its wrap yet. Only the second opens the
    // vault's newest entries at a higher key version than the wrap's; that device's keys win.
    const legacy = await o.legacy(o.roots);
    if (legacy.empty || keyVersion(legacy.keys) <= wrap.key_version) throw new AccountKeyError();
    return write(o, legacy.keys, "healed", wrap.revision + 1);
  }
  if (o.floor.revision > 0)
    throw new AccountKeyRollbackError("no longer offers this account's key wrap");
  const legacy = await o.legacy(o.roots);
  return write(o, legacy.keys, legacy.empty ? "created" : "migrated", 1);
}

async function opened(o: UnlockOptions, wrap: AccountKeyWrap): Promise<OpenedAccount> {
  const kek = await kekOf(await o.roots(wrap.kdf_iterations));
  const raw = await openAccountKey(kek, o.userId, wrap);
  return {
    keys: await accountVaultKeys(raw, wrap.key_version, wrap.kdf_iterations),
    wrap,
    step: "opened",
  };
}

async function write(
  o: UnlockOptions,
  legacyKeys: VaultKeys,
  step: Exclude<Step, "opened" | "legacy">,
  revision: number,
): Promise<OpenedAccount> {
  const iterations = keyIterations(legacyKeys);
  const root = await o.roots(iterations);
  // The keys in use keep their bytes, even for a vault with no entry yet: its sharing key, its
  // attachments and its contacts' wraps may already be under them (docs/decisions/crypto.md).
  const raw = await rootAccountKey(root);
  const wrap = await sealAccountKey(await kekOf(root), raw, o.userId, {
    key_version: keyVersion(legacyKeys),
    revision,
    kdf_iterations: iterations,
  });
  let answer: AccountKeyWrap | "conflict";
  try {
    answer = await o.io.put(wrap);
  } catch {
    // Whether it landed is unknown, and either way these keys are right: the next unlock settles it.
    return { keys: legacyKeys, wrap: null, step: "legacy" };
  }
  if (answer === "conflict") {
    // Another device wrote first: what it wrote is the account's key.
    const theirs = await o.io.get();
    if (theirs) {
      checkWrap(theirs, o.floor);
      try {
        return await opened(o, theirs);
      } catch (e) {
        if (!(e instanceof AccountKeyError)) throw e;
      }
    }
    return { keys: legacyKeys, wrap: null, step: "legacy" };
  }
  await o.written?.(answer);
  return { keys: legacyKeys, wrap: answer, step };
}

/**
 * The account key wrapped for a new passphrase (a passphrase change): the same key and key
 * version, the next revision, rounds never below the floor.
 */
export async function rewrapAccountKey(
  userId: string,
  current: { wrap: AccountKeyWrap; roots: RootFor },
  next: { passphrase: string; iterations: number },
): Promise<{ wrap: AccountKeyWrap; raw: Uint8Array }> {
  const raw = await openAccountKey(
    await kekOf(await current.roots(current.wrap.kdf_iterations)),
    userId,
    current.wrap,
  );
  const iterations = acceptKdf(Math.max(next.iterations, current.wrap.kdf_iterations));
  const root = await passphraseRoot(next.passphrase, userId, iterations);
  return {
    wrap: await sealAccountKey(await kekOf(root), raw, userId, {
      key_version: current.wrap.key_version,
      revision: current.wrap.revision + 1,
      kdf_iterations: iterations,
    }),
    raw,
  };
}
