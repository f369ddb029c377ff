/**
 * The keys of emergency access and the dead man's switch (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people",
 * "Emergency access and dead man's switch keys"): the owner's vault key, wrapped in this browser
 * for the contact's pinned sharing key; the contact unwraps it with their own sharing key and opens
 * the owner's entries in the owner's place. The server stores and relays only the wrap.
 */
import { ApiError, OfflineError, type SyncEntry } from "../../../core/api";
import { FirstUseDeclined, KeyChangedError, trustedContactKey } from "./contact-keys";
import { askFirstUse } from "./first-use-panel";
import {
  keyVersion,
  type EntrySecrets,
  type VaultKeys,
  keyCheckMatches,
  makeKeyCheck,
  openEntry,
  placeOf,
  wrapHeader,
  wrapVaultKeyFor,
  type VaultKeyBinding,
} from "../../../core/crypto";
import { PassphraseError, verified } from "../../../core/session";
import type { AppContext } from "../shell/context";

type Owner = Pick<AppContext, "api" | "db" | "session" | "keys" | "trust">;

/** A refusal worded for the person, shown as is. */
export class RecoveryInputError extends Error {}

/** Words for the person from a failure: step-up refusals ask for a fresh sign-in. */
export function explain(e: unknown, what: string): string {
  if (
    e instanceof RecoveryInputError ||
    e instanceof KeyChangedError ||
    e instanceof FirstUseDeclined
  )
    return e.message;
  if (e instanceof OfflineError) return `${what} needs a connection; you are offline.`;
  if (e instanceof ApiError) {
    if (e.body.code === "STEP_UP_REQUIRED")
      return `${what} needs a recent sign-in: sign in again, then retry.`;
    return `${what} failed: ${e.body.error}`;
  }
  return `${what} failed: ${e instanceof Error ? e.message : String(e)}`;
}

/**
 * An extractable copy of the vault key in memory, opened again from the passphrase (the account
 * key's wrap, or for an account not moved yet the same derivation). Used only if the stored key
 * check opens under both it and the in-memory key: then both are the same key, and a mistyped
 * passphrase can never be wrapped for anyone.
 */
export async function extractableVaultKey(app: Owner, passphrase: string): Promise<CryptoKey> {
  const uid = app.session.userId;
  let check = await app.db.keyCheck(uid);
  if (!check) {
    check = await makeKeyCheck(app.keys, uid);
    await app.db.setMeta(`keycheck:${uid}`, check);
  }
  const refused = () =>
    new RecoveryInputError("This passphrase does not open the vault: nothing was sent");
  let copy: VaultKeys;
  try {
    copy = await verified(app.db, uid, passphrase, true);
  } catch (e) {
    if (e instanceof PassphraseError) throw refused();
    throw e;
  }
  if (
    keyVersion(copy) !== keyVersion(app.keys) ||
    !(await keyCheckMatches(copy, uid, check)) ||
    !(await keyCheckMatches(app.keys, uid, check))
  ) {
    throw refused();
  }
  return copy.vaultKey;
}

/**
 * The owner's vault key wrapped for `email`'s pinned sharing key (the same pin as sharing: a key
 * compared for one feature is not asked about again). A changed key is refused (KeyChangedError,
 * with both fingerprints); a person without one is told what to do.
 */
export async function vaultKeyFor(
  app: Owner,
  passphrase: string,
  email: string,
  bind: Omit<VaultKeyBinding, "ownerId" | "recipientEmail">,
): Promise<string> {
  // The passphrase first: a wrong one ends here, before the person is asked to compare a key.
  const vaultKey = await extractableVaultKey(app, passphrase);
  let recipient: { jwk: { x: string; y: string } };
  try {
    recipient = await trustedContactKey(app.api, app.trust, email, bind.purpose, askFirstUse);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404)
      throw new RecoveryInputError(
        `${email} has no vault here yet: ask them to sign in and open their vault once, then try again`,
      );
    throw e;
  }
  return wrapVaultKeyFor(vaultKey, recipient.jwk, {
    ...bind,
    ownerId: app.session.userId,
    recipientEmail: email,
  });
}

export type OwnerEntry = { entry: SyncEntry; open(): Promise<EntrySecrets> };

/**
 * The owner's entries, each opened on demand with the owner's vault key in the owner's place. The
 * index key is a throwaway (a contact only reads); the key version is the one each wrap names, as
 * the vault key has no other: a wrap under a newer key (a passphrase change since the invitation)
 * fails its tag and is reported as not opening.
 */
export function ownerEntries(
  vaultKey: CryptoKey,
  ownerId: string,
  entries: SyncEntry[],
): OwnerEntry[] {
  let indexKey: Promise<CryptoKey> | null = null;
  return entries.map((entry) => ({
    entry,
    async open() {
      if (!entry.wrapped_item_key || !entry.encrypted_data)
        throw new RecoveryInputError("This entry has no encrypted data to open");
      indexKey ??= crypto.subtle.generateKey(
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign"],
      ) as Promise<CryptoKey>;
      const header = wrapHeader(entry.wrapped_item_key);
      const keys: VaultKeys = {
        vaultKey,
        indexKey: await indexKey,
        version: header?.keyVersion ?? 1,
        iterations: header?.iterations,
      };
      return (
        await openEntry(keys, placeOf(ownerId, entry), {
          wrapped_item_key: entry.wrapped_item_key,
          encrypted_data: entry.encrypted_data,
        })
      ).secrets;
    },
  }));
}

export const randomSalt = () => crypto.getRandomValues(new Uint8Array(16));
