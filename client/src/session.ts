/**
 * Sign-in and sign-out for the web client (docs/decisions.md, "Issue 10" and "Issue 15").
 *
 * The API identity travels in the HTTP-only access_token cookie, which the worker sets at the end
 * of an OpenID Connect sign-in (/api/auth/login → provider → /api/auth/callback); the page learns
 * who it names from /api/auth/session. The vault key never leaves the browser: it is derived from
 * the master passphrase and kept, non-extractable, in the local store until sign-out.
 */
import { ApiClient, ApiError } from "./api";
import { decryptEntry, deriveVaultKeys, makeKeyCheck, type VaultKeys } from "./crypto";
import { openDb, type LocalDb, type Session } from "./db";
import { recordActivity } from "./passphrase";

export class SignInError extends Error {}

/** The user the auth cookie names, or null when there is none (or it expired). */
export async function providerSession(api = new ApiClient()): Promise<{ id: string; email: string | null } | null> {
  try {
    return (await api.session()).user;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

/**
 * Checks a passphrase against the vault: the newest V3 entry must decrypt. An empty vault accepts
 * any passphrase, which then becomes the vault's.
 */
async function checkPassphrase(api: ApiClient, keys: VaultKeys) {
  const { data } = await api.listPasswords(1, 20);
  const sample = data.find((e) => e.encryption_version === 3 && e.wrapped_item_key && e.encrypted_data);
  if (!sample) return;
  try {
    await decryptEntry(keys, { wrapped_item_key: sample.wrapped_item_key!, encrypted_data: sample.encrypted_data! });
  } catch {
    throw new SignInError("This passphrase does not open the vault");
  }
}

/** Opens the vault of the signed-in user (the auth cookie) with the master passphrase. */
export async function signIn(passphrase: string): Promise<Session> {
  const api = new ApiClient();
  const user = await providerSession(api);
  if (!user) throw new SignInError("The sign-in has expired: sign in again");
  const claims = { sub: user.id, email: user.email };
  const keys = await deriveVaultKeys(passphrase, claims.sub);
  await checkPassphrase(api, keys);
  const db = await openDb();
  try {
    const previous = await db.session();
    // Another user's data never stays behind a sign-in.
    if (previous && previous.userId !== claims.sub) await db.clearAll();
    const session: Session = { userId: claims.sub, email: claims.email, signedInAt: new Date().toISOString() };
    await db.setMeta(`keys:${claims.sub}`, keys);
    await db.setMeta(`keycheck:${claims.sub}`, await makeKeyCheck(keys));
    // A sign-in is activity: an idle time left from before (a lock, an expired token) must not lock the new keys.
    await recordActivity(db, claims.sub, Date.now());
    await db.setMeta("session", session);
    return session;
  } finally {
    db.close();
  }
}

/**
 * The signed-in user, or null (then the page goes to sign-in). Without keys the vault is locked:
 * the session and the encrypted entries stay until the passphrase opens it again.
 */
export async function currentSession(db: LocalDb): Promise<{ session: Session; keys: VaultKeys | undefined } | null> {
  const session = await db.session();
  return session ? { session, keys: await db.keys(session.userId) } : null;
}

/** Rule 7: clear the store, (the caller stops the timer,) and have the worker drop the sync cache. */
export async function signOut(db: LocalDb): Promise<void> {
  await db.clearAll();
  // The cookie is HTTP-only: only the worker can clear it.
  await fetch("/api/auth/logout", { method: "POST", credentials: "same-origin" }).catch(() => undefined);
  await clearSyncCache();
}

export async function clearSyncCache(): Promise<void> {
  const reg = await navigator.serviceWorker?.getRegistration();
  const worker = navigator.serviceWorker?.controller ?? reg?.active;
  if (!worker) return;
  await new Promise<void>((resolve) => {
    const channel = new MessageChannel();
    const timeout = setTimeout(resolve, 2000);
    channel.port1.onmessage = () => {
      clearTimeout(timeout);
      resolve();
    };
    worker.postMessage({ type: "CLEAR_SYNC_CACHE" }, [channel.port2]);
  });
}
