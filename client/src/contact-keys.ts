/**
 * Contacts' public keys, never taken on the server's word alone (docs/decisions.md, "Crypto: the clients hold against a malicious server"):
 * the first key seen for a contact is pinned on this device, and a different key later is
 * refused until the person compares fingerprints with the contact and accepts it. Sharing an
 * entry and inviting an emergency contact both wrap for the contact's sharing key, so both go
 * through `trustedContactKey` with their own purpose (a pin per purpose). The first use is not
 * silent: the person sees the contact's fingerprint, with the invitation to compare it, and the key
 * is pinned only when they go ahead.
 */
import type { ApiClient } from "./api";
import type { KeyPurpose, PinResult, PublicJwk, TrustStore } from "./trust";

export class KeyChangedError extends Error {
  constructor(
    readonly email: string,
    readonly result: PinResult,
  ) {
    super(
      `The server now gives a different key for ${email} than the one this device pinned (pinned ${result.pinned}, offered ${result.fingerprint}). Nothing was shared. Compare the new fingerprint with ${email} before trusting it.`,
    );
    this.name = "KeyChangedError";
  }
}

export type CheckedKey = { jwk: PublicJwk; pin: PinResult };

/** The server's key for `email`, with how it compares to the pin (does not refuse: for display). */
export async function checkContactKey(api: ApiClient, trust: TrustStore, email: string, purpose: KeyPurpose): Promise<CheckedKey> {
  const { publicKey } = await api.sharingKey(email);
  return { jwk: publicKey, pin: await trust.pinKey(email, purpose, publicKey) };
}

/** The person chose not to go ahead with a key seen for the first time: nothing shared, nothing pinned. */
export class FirstUseDeclined extends Error {
  constructor(readonly email: string) {
    super(`Nothing was sent to ${email}. Compare fingerprints with them, then try again.`);
    this.name = "FirstUseDeclined";
  }
}

/** Asks the person whether to go ahead with a contact's key seen for the first time. */
export type FirstUse = (email: string, fingerprint: string, purpose: KeyPurpose) => Promise<boolean>;

/**
 * The key to wrap for: the pinned one; a changed key throws KeyChangedError; a key seen for the
 * first time is shown to the person (`firstUse`, the app's panel: first-use-panel.ts) and pinned
 * only if they go ahead, else FirstUseDeclined.
 */
export async function trustedContactKey(api: ApiClient, trust: TrustStore, email: string, purpose: KeyPurpose, firstUse: FirstUse): Promise<CheckedKey> {
  const { publicKey } = await api.sharingKey(email);
  const pin = await trust.peekKey(email, purpose, publicKey);
  if (pin.status === "changed") throw new KeyChangedError(email, pin);
  if (pin.status === "new") {
    if (!(await firstUse(email, pin.fingerprint, purpose))) throw new FirstUseDeclined(email);
    await trust.acceptKey(email, purpose, publicKey);
  }
  return { jwk: publicKey, pin };
}
