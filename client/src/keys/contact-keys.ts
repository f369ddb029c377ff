/**
 * Contacts' public keys, never taken on the server's word alone (docs/decisions/crypto.md, "Crypto: the clients hold against a malicious server"):
 * the first key seen for a contact is pinned on this device, and a different key later is
 * refused until the person compares fingerprints with the contact and accepts it. Sharing an
 * entry, inviting an emergency contact and naming a dead man's switch recipient all wrap for the
 * contact's one sharing key, so all go through `trustedContactKey` and share one pin per contact:
 * the purpose only words the question. The first use is not silent: the person sees the contact's
 * fingerprint and is asked to compare it; whether they did is kept with the pin and shown beside
 * the contact, and a key is asked about once, not once per feature.
 */
import type { ApiClient } from "../../../core/api";
import type { KeyPurpose, PinResult, PublicJwk, TrustStore } from "../../../core/crypto";

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
export async function checkContactKey(
  api: ApiClient,
  trust: TrustStore,
  email: string,
): Promise<CheckedKey> {
  const { publicKey } = await api.sharingKey(email);
  return { jwk: publicKey, pin: await trust.pinKey(email, publicKey) };
}

/** The person chose not to go ahead with a key seen for the first time: nothing shared, nothing pinned. */
export class FirstUseDeclined extends Error {
  constructor(readonly email: string) {
    super(`Nothing was sent to ${email}. Compare fingerprints with them, then try again.`);
    this.name = "FirstUseDeclined";
  }
}

/**
 * The person's answer about a contact's key seen for the first time: they compared it with the
 * contact and it matched, they go ahead without comparing, or nothing is sent.
 */
export type FirstUseAnswer = "compared" | "not-compared" | "cancel";
/** Asks the person whether to go ahead with a contact's key seen for the first time. */
export type FirstUse = (
  email: string,
  fingerprint: string,
  purpose: KeyPurpose,
) => Promise<FirstUseAnswer>;

/**
 * The key to wrap for: the pinned one; a changed key throws KeyChangedError; a key seen for the
 * first time is shown to the person (`firstUse`, the app's panel: first-use-panel.ts) and pinned
 * only if they go ahead (recording whether they compared it), else FirstUseDeclined. A pinned key
 * is not asked about again, whatever it was first used for.
 */
export async function trustedContactKey(
  api: ApiClient,
  trust: TrustStore,
  email: string,
  purpose: KeyPurpose,
  firstUse: FirstUse,
): Promise<CheckedKey> {
  const { publicKey } = await api.sharingKey(email);
  const pin = await trust.peekKey(email, publicKey);
  if (pin.status === "changed") throw new KeyChangedError(email, pin);
  if (pin.status === "new") {
    const answer = await firstUse(email, pin.fingerprint, purpose);
    if (answer === "cancel") throw new FirstUseDeclined(email);
    await trust.acceptKey(email, publicKey, answer === "compared");
    return { jwk: publicKey, pin: { ...pin, compared: answer === "compared" } };
  }
  return { jwk: publicKey, pin };
}
