/**
 * This user's own sharing key pair (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people", "Sharing in the web app"): made
 * in the browser when the vault is first unlocked (and, for a vault from before that, at its next
 * unlock), the private half kept on the server wrapped by the vault key and in the local store, so
 * sharing, emergency access and the dead man's switch open it on any device and offline, and
 * anyone can invite the person from the moment their vault exists.
 */
import { ApiError, OfflineError, sharingApi, type SharingKey } from "../../../core/api";
import { makeSharingKeyPair, unwrapSharingPrivateKey } from "../../../core/crypto";
import type { AppContext } from "../shell/context";

export type OwnSharingKey = { privateKey: CryptoKey | null; registered: boolean };
type Owner = Pick<AppContext, "api" | "db" | "session" | "keys">;

const cacheKey = (app: Owner) => `sharingKey:${app.session.userId}`;

/**
 * Runs `fn` while no other tab of this browser makes this account's key: the server replaces a
 * registered key, so two tabs that both found none would each register a pair and the first one's
 * would be gone, and every contact who had pinned it would be told the key changed.
 */
function alone<T>(app: Owner, fn: () => Promise<T>): Promise<T> {
  const locks = typeof navigator === "undefined" ? undefined : navigator.locks;
  if (!locks) return fn();
  return locks.request(`sharing-key:${app.session.userId}`, fn) as Promise<T>;
}

/**
 * The private key, or null when the account's key was registered without its private half (a
 * script). `create`: make and register a pair when the account has none (online only).
 */
export function ownSharingKey(app: Owner, create: boolean): Promise<OwnSharingKey> {
  return create ? alone(app, () => readOrMake(app, true)) : readOrMake(app, false);
}

async function readOrMake(app: Owner, create: boolean): Promise<OwnSharingKey> {
  const api = sharingApi(app.api);
  let stored = await app.db.meta<SharingKey>(cacheKey(app));
  try {
    // A browser that holds no key asks first whether the account has one: a new account's first
    // unlock then makes its key without a refused request on the way.
    stored = !stored && create && !(await api.hasKey()) ? undefined : await api.ownKey();
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
  if (stored) await app.db.setMeta(cacheKey(app), stored);
  return { privateKey, registered: !!stored };
}

/**
 * At every unlock: the account gets its sharing key if it has none, so nobody has to "open
 * Sharing once" before they can be invited. A browser that already holds the key asks nothing of
 * the server; a failure is left for the next unlock (the pages that need the key make it too).
 */
export async function ensureSharingKey(app: Owner): Promise<void> {
  if (await app.db.meta<SharingKey>(cacheKey(app))) return;
  await ownSharingKey(app, true);
}
