/**
 * This user's own sharing key pair (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people", "Sharing in the web app"): made
 * in the browser on first need, the private half kept on the server wrapped by the vault key and
 * in the local store, so sharing, emergency access and the dead man's switch open it on any device
 * and offline.
 */
import { ApiError, OfflineError, sharingApi, type SharingKey } from "../../../core/api";
import { makeSharingKeyPair, unwrapSharingPrivateKey } from "../../../core/crypto";
import type { AppContext } from "../shell/context";

export type OwnSharingKey = { privateKey: CryptoKey | null; registered: boolean };

/**
 * The private key, or null when the account's key was registered without its private half (a
 * script). `create`: make and register a pair when the account has none (online only).
 */
export async function ownSharingKey(
  app: Pick<AppContext, "api" | "db" | "session" | "keys">,
  create: boolean,
): Promise<OwnSharingKey> {
  const api = sharingApi(app.api);
  const cacheKey = `sharingKey:${app.session.userId}`;
  let stored = await app.db.meta<SharingKey>(cacheKey);
  try {
    stored = await api.ownKey();
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) stored = undefined;
    else if (!(e instanceof OfflineError)) throw e;
  }
  let privateKey: CryptoKey | null = null;
  if (!stored && create && navigator.onLine) {
    // Only the public half and the wrapped private half leave this browser.
    const made = await makeSharingKeyPair(app.keys);
    stored = await api.putKey(made.publicKey, made.wrappedPrivateKey);
    privateKey = made.privateKey;
  } else if (stored?.wrappedPrivateKey) {
    privateKey = await unwrapSharingPrivateKey(app.keys, stored.wrappedPrivateKey);
  }
  if (stored) await app.db.setMeta(cacheKey, stored);
  return { privateKey, registered: !!stored };
}
