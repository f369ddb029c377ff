/**
 * The extension as a device of the account (spec "Trusted device"), bound to a key of its own:
 * the web client's device key (core/crypto/device-key.ts), a non-extractable ECDSA P-256 pair in
 * the extension's IndexedDB. The service worker makes it when the extension is installed or the
 * browser starts; the offscreen vault, the one context that calls the API, reads the same stored
 * pair, names the extension by it (`x-device-fingerprint`) and signs a DPoP proof (RFC 9449) with it
 * on every call it makes, the web client's signer with the server's nonce.
 */
import { setDefaultHeader, type ApiClient, type DeviceRegistration } from "../../core/api";
import { extensionDevice, proveThisDevice, registerWithKey } from "../../core/device";
import { deviceKeyPair, publicJwk } from "../../core/crypto";

let identity: Promise<{
  me: DeviceRegistration;
  publicKey: DeviceRegistration["publicKey"];
} | null> | null = null;
let provingAt: string | null = null;
/** Origin and account this extension is registered with, in this document's life. */
const registered = new Set<string>();

/**
 * Puts the fingerprint and the proof signer in place for calls to `appOrigin`; waits for the key.
 * Without IndexedDB or WebCrypto there is no key: calls go unproven and the extension is then no
 * known device (it calls nothing that needs one).
 */
export async function proveExtension(
  appOrigin: string,
  bearer: () => Promise<string | null>,
): Promise<void> {
  identity ??= deviceKeyPair()
    .then(publicJwk)
    .then(async (publicKey) => {
      const me = await extensionDevice(publicKey);
      setDefaultHeader("x-device-fingerprint", me.fingerprint);
      return { me, publicKey };
    })
    .catch(() => ((identity = null), null));
  // The nonce is the server's: another web app address needs its own, so a new signer.
  if (provingAt !== appOrigin) {
    proveThisDevice(appOrigin, bearer);
    provingAt = appOrigin;
  }
  await identity;
}

/**
 * Registers the extension with its key, once per account and address while this document lives;
 * a refusal (a sign-in older than 300 s for a new device, offline) is tried again next time.
 */
export async function registerExtension(
  api: ApiClient,
  appOrigin: string,
  userId: string,
): Promise<void> {
  const id = await identity;
  const key = `${appOrigin}|${userId}`;
  if (!id || registered.has(key)) return;
  if (await registerWithKey(api, id.me, id.publicKey)) registered.add(key);
}
