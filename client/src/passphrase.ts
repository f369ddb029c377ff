/**
 * Lock, unlock and master-passphrase change (docs/decisions.md, "Issue 10"). All three work
 * offline: the passphrase is checked against the key check stored at sign-in, and a change is
 * queued as ordinary update mutations that the sync engine pushes later.
 */
import { blindIndexes, decryptEntry, deriveVaultKeys, keyCheckMatches, makeKeyCheck, rewrapItemKey, type VaultKeys } from "./crypto";
import type { LocalDb, LocalEntry, PendingMutation } from "./db";
import { withSyncLock } from "./sync-engine";

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

export async function idleTooLong(db: LocalDb, userId: string): Promise<boolean> {
  const last = await db.meta<number>(activityKey(userId));
  return last !== undefined && Date.now() - last >= AUTO_LOCK_MS;
}

/** Lock: the keys leave the store (the caller drops the page, and with it the keys in memory). */
export async function lockVault(db: LocalDb, userId: string, keys: VaultKeys): Promise<void> {
  // A session signed in before key checks existed gets one while the key is still at hand.
  if (!(await db.keyCheck(userId))) await db.setMeta(`keycheck:${userId}`, await makeKeyCheck(keys));
  await db.dropKeys(userId);
}

async function verified(db: LocalDb, userId: string, passphrase: string): Promise<VaultKeys> {
  const check = await db.keyCheck(userId);
  if (!check) throw new PassphraseError("This device cannot check the passphrase: sign out and sign in again");
  const keys = await deriveVaultKeys(passphrase, userId);
  if (!(await keyCheckMatches(keys, check))) throw new PassphraseError("This passphrase does not open the vault");
  return keys;
}

export async function unlockVault(db: LocalDb, userId: string, passphrase: string): Promise<VaultKeys> {
  const keys = await verified(db, userId, passphrase);
  await recordActivity(db, userId, Date.now());
  await db.setMeta(`keys:${userId}`, keys);
  return keys;
}

/**
 * Zero-knowledge rotation: every item key is unwrapped with the old vault key and wrapped with the
 * new one (encrypted_data does not change), the blind indexes are recomputed with the new index
 * key, and each entry is queued as an update. Nothing is written until every entry is done; then
 * entries, queue, keys and key check change in one transaction. Runs under the sync lock, so no
 * pull lands an old-key envelope in between. Returns the number of entries re-wrapped.
 */
export async function changePassphrase(db: LocalDb, userId: string, oldKeys: VaultKeys, current: string, next: string): Promise<number> {
  if (next.length < MIN_PASSPHRASE) throw new PassphraseError(`The new passphrase needs at least ${MIN_PASSPHRASE} characters`);
  if (next === current) throw new PassphraseError("The new passphrase is the current one");
  if (!(await db.keyCheck(userId))) await db.setMeta(`keycheck:${userId}`, await makeKeyCheck(oldKeys));
  const checked = await verified(db, userId, current);
  const newKeys = await deriveVaultKeys(next, userId);
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
      let username: string;
      let wrapped: string;
      try {
        username = (await decryptEntry(checked, { wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data })).username;
        wrapped = await rewrapItemKey(checked, newKeys, e.wrapped_item_key);
      } catch {
        unreadable.push(e.name);
        continue;
      }
      const idx = await blindIndexes(newKeys, { name: e.name, website, username });
      const entry: LocalEntry = { ...e, wrapped_item_key: wrapped, search_tokens: idx.search_tokens, updated_at: now };
      changes.push({
        entry,
        mutation: {
          userId,
          action: "update",
          entryId: e.id,
          clientUpdatedAt: now,
          data: {
            name: e.name,
            website: e.website,
            url: e.url,
            tags: e.tags,
            wrapped_item_key: wrapped,
            encrypted_data: e.encrypted_data,
            encryption_version: 3,
            name_hash: idx.name_hash,
            username_hash: idx.username_hash,
            domain_hash: idx.domain_hash ?? null,
            search_tokens: idx.search_tokens,
          },
        },
      });
    }
    // Switching keys now would strand these entries under a passphrase that is about to be forgotten.
    if (unreadable.length) throw new PassphraseError(`Not changed: ${unreadable.length} entries cannot be opened with the current key (${unreadable.slice(0, 3).join(", ")})`);
    await db.rotate(userId, changes, newKeys, await makeKeyCheck(newKeys));
    return changes.filter((c) => c.mutation).length;
  });
}
