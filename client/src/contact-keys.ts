/**
 * Contacts' public keys, never taken on the server's word alone (docs/decisions.md, "Crypto: the clients hold against a malicious server"):
 * the first key seen for a contact is pinned on this device, and a different key later is
 * refused until the person compares fingerprints with the contact and accepts it. Sharing an
 * entry and inviting an emergency contact both wrap for the contact's sharing key, so both go
 * through `trustedContactKey` with their own purpose (a pin per purpose).
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

/** The key to wrap for: the pinned one (or first seen, now pinned); a changed key throws. */
export async function trustedContactKey(api: ApiClient, trust: TrustStore, email: string, purpose: KeyPurpose): Promise<CheckedKey> {
  const checked = await checkContactKey(api, trust, email, purpose);
  if (checked.pin.status === "changed") throw new KeyChangedError(email, checked.pin);
  return checked;
}
