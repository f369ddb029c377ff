/**
 * Lock, unlock and master-passphrase change (docs/decisions/client.md, "Client: the web client"). Lock
 * and unlock work offline: the passphrase opens the account key wrap stored at sign-in (or, for an
 * account not moved to an account key yet, is checked against the key check). A change online
 * wraps the account key again (one write); offline it re-keys every entry as before, queued as
 * ordinary update mutations that the sync engine pushes later.
 */
import type { ApiClient } from "../api";
import {
  accountVaultKeys,
  AccountKeyError,
  type AccountKeyWrap,
  kekOf,
  openAccountKey,
  passphraseRoot,
  rewrapAccountKey,
  rootsOf,
  unlockAccount,
  blindIndexes,
  deriveExtractableVaultKey,
  deriveVaultKeys,
  keyIterations,
  keyVersion,
  PBKDF2_ITERATIONS,
  type Envelope,
  type VaultKeys,
  isBound,
  keyCheckMatches,
  makeKeyCheck,
  openEntry,
  placeOf,
  rewrapItemKey,
  wrapHeader,
  TrustStore,
} from "../crypto";
import type { LocalDb, LocalEntry, PendingMutation } from "../store";
import { withSyncLock } from "../sync";
import { resealed, withEnvelope } from "../vault";

/** Idle time after which the dashboard locks the vault. */
export const AUTO_LOCK_MS = 15 * 60_000;
export const MIN_PASSPHRASE = 8;

export class PassphraseError extends Error {}

/**
 * The last user activity is also stored, so the idle limit holds across closed tabs and restarts:
 * the keys must not outlive it just because no dashboard was open to count.
 */
const activityKey = (userId: string) => `activity:${userId}`;

export function recordActivity(db: LocalDb, userId: string, at: number): Promise<void> {
  return db.setMeta(activityKey(userId), at);
}

/**
 * When this device locks the vault by itself (Settings, "Auto-lock"): after so many minutes without
 * activity, and at the first page load after the browser was closed. A device's own choice, as
 * Bitwarden's vault timeout is: a phone may lock sooner than a desk's computer.
 */
export type LockSettings = { idleMinutes: number; onBrowserClose: boolean };
/** The idle times offered, in minutes: none is "never", a vault's keys always leave the store in time. */
export const IDLE_CHOICES = [1, 5, 15, 30, 60, 240] as const;
export const LOCK_DEFAULTS: LockSettings = {
  idleMinutes: AUTO_LOCK_MS / 60_000,
  onBrowserClose: false,
};
const lockKey = (userId: string) => `autolock:${userId}`;

function validLockSettings(s: unknown): s is LockSettings {
  const v = s as Partial<LockSettings> | null;
  return (
    !!v &&
    (IDLE_CHOICES as readonly number[]).includes(v.idleMinutes as number) &&
    typeof v.onBrowserClose === "boolean"
  );
}

export async function lockSettings(db: LocalDb, userId: string): Promise<LockSettings> {
  const stored = await db.meta<LockSettings>(lockKey(userId));
  return validLockSettings(stored) ? stored : LOCK_DEFAULTS;
}

export function setLockSettings(db: LocalDb, userId: string, s: LockSettings): Promise<void> {
  if (!validLockSettings(s)) throw new Error("not an auto-lock setting this app offers");
  return db.setMeta(lockKey(userId), {
    idleMinutes: s.idleMinutes,
    onBrowserClose: s.onBrowserClose,
  });
}

export async function idleTooLong(db: LocalDb, userId: string): Promise<boolean> {
  const last = await db.meta<number>(activityKey(userId));
  const limit = (await lockSettings(db, userId)).idleMinutes * 60_000;
  return last !== undefined && Date.now() - last >= limit;
}

/** Lock: the keys leave the store (the caller drops the page, and with it the keys in memory). */
export async function lockVault(db: LocalDb, userId: string, keys: VaultKeys): Promise<void> {
  // A session signed in before key checks existed gets one while the key is still at hand.
  if (!(await db.keyCheck(userId)))
    await db.setMeta(`keycheck:${userId}`, await makeKeyCheck(keys, userId));
  await db.dropKeys(userId);
}

/** The keys a key check was made with: its header names the rounds and version (none: version 1). */
export function keysForCheck(
  passphrase: string,
  userId: string,
  check: Envelope,
): Promise<VaultKeys> {
  const header = isBound(check) ? wrapHeader(check.wrapped_item_key) : null;
  return deriveVaultKeys(
    passphrase,
    userId,
    header?.iterations ?? PBKDF2_ITERATIONS,
    header?.keyVersion ?? 1,
  );
}

type KeyCheckRecord = Envelope & { account_key?: AccountKeyWrap };

/**
 * This device's copy of the account key wrap, for unlocking without the server. It is kept in the
 * key check's record: both prove a passphrase here while the vault is locked, and a re-key of
 * every entry (db.rotate) writes a new key check without it.
 */
export async function localWrap(db: LocalDb, userId: string): Promise<AccountKeyWrap | undefined> {
  return ((await db.keyCheck(userId)) as KeyCheckRecord | undefined)?.account_key;
}

/** Keeps (or, with null, drops) this device's copy of the wrap beside `check`, else the stored key check. */
export async function keepWrap(
  db: LocalDb,
  userId: string,
  wrap: AccountKeyWrap | null,
  check?: Envelope,
): Promise<void> {
  const held = (check ?? (await db.keyCheck(userId))) as KeyCheckRecord | undefined;
  if (!held) return;
  const { account_key: _, ...bare } = held;
  await db.setMeta(`keycheck:${userId}`, wrap ? { ...bare, account_key: wrap } : bare);
}

/**
 * The keys a passphrase opens on this device: the account key in the stored wrap, else (an account
 * not moved to an account key on this device) the passphrase-derived keys the key check accepts.
 * `extractableVault` only for wrapping the vault key for a contact.
 */
export async function verified(
  db: LocalDb,
  userId: string,
  passphrase: string,
  extractableVault = false,
): Promise<VaultKeys> {
  const wrap = await localWrap(db, userId);
  if (wrap) {
    try {
      const root = await passphraseRoot(passphrase, userId, wrap.kdf_iterations);
      const raw = await openAccountKey(await kekOf(root), userId, wrap);
      return await accountVaultKeys(raw, wrap.key_version, wrap.kdf_iterations, extractableVault);
    } catch (e) {
      if (e instanceof AccountKeyError)
        throw new PassphraseError("This passphrase does not open the vault");
      throw e;
    }
  }
  const check = await db.keyCheck(userId);
  if (!check)
    throw new PassphraseError(
      "This device cannot check the passphrase: sign out and sign in again",
    );
  const keys = await keysForCheck(passphrase, userId, check);
  if (!(await keyCheckMatches(keys, userId, check)))
    throw new PassphraseError("This passphrase does not open the vault");
  if (!extractableVault) return keys;
  const copy = await deriveExtractableVaultKey(
    passphrase,
    userId,
    keyIterations(keys),
    keyVersion(keys),
  );
  if (!(await keyCheckMatches(copy, userId, check)))
    throw new PassphraseError("This passphrase does not open the vault");
  return copy;
}

/**
 * Unlocks with the passphrase on this device. With `api`, an account this device has not seen with
 * an account key yet is moved over in the background (moveOver): the unlock never waits for it.
 */
export async function unlockVault(
  db: LocalDb,
  userId: string,
  passphrase: string,
  api?: ApiClient,
): Promise<VaultKeys> {
  const keys = await verified(db, userId, passphrase);
  await recordActivity(db, userId, Date.now());
  await db.setMeta(`keys:${userId}`, keys);
  if (api && !(await localWrap(db, userId)))
    void moveOver(db, userId, passphrase, keys, api).catch(() => undefined);
  return keys;
}

/**
 * After an unlock by the key check: writes the account's first wrap (its keys' own bytes, so
 * nothing else changes), or the next one when this device re-keyed the vault offline (a passphrase
 * change) and the server still holds the wrap from before; or keeps the server's wrap when this
 * passphrase opens it at the key version in use. Anything else leaves the device as it was: the
 * keys in use are never swapped here, and the next unlock tries again.
 */
export async function moveOver(
  db: LocalDb,
  userId: string,
  passphrase: string,
  keys: VaultKeys,
  api: Pick<ApiClient, "accountKey" | "putAccountKey">,
): Promise<AccountKeyWrap | null> {
  const trust = await TrustStore.open(userId);
  try {
    const floor = await trust.floor();
    const opened = await unlockAccount({
      io: { get: () => api.accountKey(), put: (w) => api.putAccountKey(w) },
      userId,
      floor: { keyVersion: floor.keyVersion, revision: floor.revision ?? 0 },
      roots: rootsOf(passphrase, userId),
      legacy: async () => ({ keys, empty: false }),
    });
    if (!opened.wrap || keyVersion(opened.keys) !== keyVersion(keys)) return null;
    await keepWrap(db, userId, opened.wrap);
    await trust.raise({ keyVersion: keyVersion(keys), revision: opened.wrap.revision });
    return opened.wrap;
  } finally {
    trust.close();
  }
}

/** The passphrase change could not be confirmed by the server: the passphrase was not changed. */
const notReached = () =>
  new PassphraseError(
    "The server could not be reached: the passphrase was not changed. Try again when online.",
  );

/**
 * A passphrase change on an account with an account key, online: the account key is wrapped
 * again under the new passphrase (the next revision, the same key version), nothing else changes.
 * The server's compare-and-set refuses it when another device changed the passphrase first.
 */
async function rewrapOnline(
  db: LocalDb,
  userId: string,
  api: ApiClient,
  current: string,
  next: string,
): Promise<void> {
  const held = await localWrap(db, userId);
  let wrap: AccountKeyWrap | null;
  try {
    wrap = await api.accountKey();
  } catch {
    throw notReached();
  }
  // The server's newest, never one older than this device's copy.
  if (!wrap || !held || wrap.revision < held.revision || wrap.key_version < held.key_version)
    throw new PassphraseError(
      "The server does not hold this account's current key: the passphrase was not changed",
    );
  let rewrapped: AccountKeyWrap;
  try {
    ({ wrap: rewrapped } = await rewrapAccountKey(
      userId,
      { wrap, roots: rootsOf(current, userId) },
      { passphrase: next, iterations: PBKDF2_ITERATIONS },
    ));
  } catch (e) {
    if (e instanceof AccountKeyError)
      throw new PassphraseError("This passphrase does not open the vault");
    throw e;
  }
  let answer: AccountKeyWrap | "conflict";
  try {
    answer = await api.putAccountKey(rewrapped);
  } catch {
    // Whether it landed is unknown: the server's wrap says.
    const now = await api.accountKey().catch(() => null);
    if (now?.wrapped_key !== rewrapped.wrapped_key) throw notReached();
    answer = now;
  }
  if (answer === "conflict")
    throw new PassphraseError(
      "The passphrase was changed on another device meanwhile: sign in again with the new one",
    );
  await keepWrap(db, userId, answer);
  const trust = await TrustStore.open(userId);
  try {
    await trust.raise({ revision: answer.revision });
  } finally {
    trust.close();
  }
}

/**
 * Zero-knowledge rotation: every item key is unwrapped with the old vault key and wrapped with the
 * new one (encrypted_data does not change), the blind indexes are recomputed with the new index
 * key, and each entry is queued as an update. Nothing is written until every entry is done; then
 * entries, queue, keys and key check change in one transaction. Runs under the sync lock, so no
 * pull lands an old-key envelope in between. Returns the number of entries re-wrapped.
 */
export async function changePassphrase(
  db: LocalDb,
  userId: string,
  oldKeys: VaultKeys,
  current: string,
  next: string,
  api?: ApiClient,
): Promise<number> {
  if (next.length < MIN_PASSPHRASE)
    throw new PassphraseError(`The new passphrase needs at least ${MIN_PASSPHRASE} characters`);
  if (next === current) throw new PassphraseError("The new passphrase is the current one");
  // With an account key and a connection, one wrap changes; offline, every entry is re-keyed.
  if (
    api &&
    globalThis.navigator?.onLine !== false &&
    (await localWrap(db, userId)) !== undefined
  ) {
    await rewrapOnline(db, userId, api, current, next);
    return 0;
  }
  if (!(await db.keyCheck(userId)))
    await db.setMeta(`keycheck:${userId}`, await makeKeyCheck(oldKeys, userId));
  const checked = await verified(db, userId, current);
  // A new key version, so that a server replaying the old wraps is caught (envelope.KeyRollbackError).
  const newKeys = await deriveVaultKeys(
    next,
    userId,
    Math.max(keyIterations(checked), PBKDF2_ITERATIONS),
    keyVersion(checked) + 1,
  );
  return withSyncLock(async () => {
    const now = new Date().toISOString();
    const changes: { entry: LocalEntry; mutation?: PendingMutation }[] = [];
    const unreadable: string[] = [];
    for (const e of await db.entries(userId)) {
      const website = e.website ?? e.url ?? "";
      if (e.encryption_version !== 3 || !e.wrapped_item_key || !e.encrypted_data) {
        // Legacy plaintext entries have no key to move; only their local search tokens change.
        const idx = await blindIndexes(newKeys, { name: e.name, website, username: "" });
        changes.push({ entry: { ...e, search_tokens: idx.search_tokens } });
        continue;
      }
      const env = { wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data };
      const place = placeOf(userId, e);
      try {
        // The old key is the one being replaced, so unbound entries are re-sealed bound on the way.
        const opened = await openEntry(checked, place, env, { allowLegacy: true });
        if (opened.legacy) {
          changes.push(await resealed(newKeys, userId, e, opened.secrets, now));
          continue;
        }
        const wrapped = await rewrapItemKey(checked, newKeys, place, e.wrapped_item_key);
        changes.push(
          await withEnvelope(
            newKeys,
            userId,
            e,
            { wrapped_item_key: wrapped, encrypted_data: e.encrypted_data },
            opened.secrets,
            now,
          ),
        );
      } catch {
        unreadable.push(e.name);
      }
    }
    // Switching keys now would strand these entries under a passphrase that is about to be forgotten.
    if (unreadable.length)
      throw new PassphraseError(
        `Not changed: ${unreadable.length} entries cannot be opened with the current key (${unreadable.slice(0, 3).join(", ")})`,
      );
    // The new keys are the new passphrase's own: the stored account key wrap no longer opens them
    // (db.rotate drops it), and the next sign-in with the new passphrase writes the next wrap.
    await db.rotate(userId, changes, newKeys, await makeKeyCheck(newKeys, userId));
    const trust = await TrustStore.open(userId);
    try {
      await trust.raise({ keyVersion: keyVersion(newKeys) });
    } finally {
      trust.close();
    }
    return changes.filter((c) => c.mutation).length;
  });
}
