/**
 * Sign-in and sign-out for the web client (docs/decisions/client.md, "Client: the web client" and "Client: app shell, OpenID Connect sign-in, journeys between people").
 *
 * The API identity travels in the HTTP-only access_token cookie, which the worker sets at the end
 * of an OpenID Connect sign-in (/api/auth/login → provider → /api/auth/callback); the page learns
 * who it names from /api/auth/session. The vault key never leaves the browser: it is the account
 * key the master passphrase unwraps (core/crypto/account-key.ts), kept non-extractable in the
 * local store until sign-out.
 */
import { ApiClient, ApiError } from "../api";
import {
  acceptKdf,
  AccountKeyRollbackError,
  type AccountKeyWrap,
  decryptLegacyEntry,
  DecryptionError,
  KdfRefusedError,
  keyVersion,
  PBKDF2_ITERATIONS,
  type VaultKeys,
  isBound,
  KeyRollbackError,
  LegacyRefusedError,
  makeKeyCheck,
  openEntry,
  passphraseRoot,
  placeOf,
  rootsOf,
  rootVaultKeys,
  type RootFor,
  unlockAccount,
  wrapHeader,
  TrustStore,
} from "../crypto";
import { openDb, type LocalDb, type Session } from "../store";
import { keepWrap, recordActivity } from "./passphrase";
import { removeThisBrowsersPush } from "./push-subscription";
import { stopPullWorker } from "../sync";

export class SignInError extends Error {}

/**
 * The store's note of whose vault a pull made ahead of the sign-in wrote (pull-ahead.ts): a sign-in
 * that then failed leaves that ciphertext with no session beside it, and another user's sign-in
 * clears it as it clears a previous session's data.
 */
export const PULLED_AHEAD = "pulledAhead";

/** The cookie the worker sets at the end of a sign-in; the extension reads it to follow the app's session. */
export const AUTH_COOKIE = "access_token";

/** The auth cookie's name at an origin: `__Host-` prefixed over https, bare on plain-http development (src/http/cookies.ts). */
export const authCookieAt = (origin: string) =>
  new URL(origin).protocol === "https:" ? `__Host-${AUTH_COOKIE}` : AUTH_COOKIE;

type Claims = { sub?: unknown; email?: unknown; exp?: unknown };

/** Reads the claims of an access token; the server verifies the signature on every request. */
export function tokenClaims(token: string): { sub: string; email: string | null; exp: number } {
  const part = token.trim().split(".")[1];
  if (!part) throw new SignInError("That is not a JWT (expected three dot-separated parts)");
  let claims: Claims;
  try {
    claims = JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/"))) as Claims;
  } catch {
    throw new SignInError("The token's payload is not readable JSON");
  }
  if (typeof claims.sub !== "string" || !claims.sub)
    throw new SignInError("The token has no subject (sub)");
  if (typeof claims.exp !== "number" || claims.exp * 1000 <= Date.now())
    throw new SignInError("The token has expired");
  return {
    sub: claims.sub,
    email: typeof claims.email === "string" ? claims.email : null,
    exp: claims.exp,
  };
}

/** The user the auth cookie names, or null when there is none (or it expired). */
export async function providerSession(
  api = new ApiClient(),
): Promise<{ id: string; email: string | null } | null> {
  try {
    return (await api.session()).user;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

/** What the sign-in page read as it loaded, before the passphrase: whose vault, and its newest entries. */
export type SignInAhead = { userId: string; newest: Entry[] };
type Entry = Awaited<ReturnType<ApiClient["listPasswords"]>>["data"][number];
type Kdf = { iterations: number; keyVersion: number };
/** The passphrase's root derived before the sign-in's own reads came back, with what it was derived for. */
type Derived = { userId: string; kdf: Kdf; root: Promise<CryptoKey> };

const samplesOf = (data: Entry[]) =>
  data.flatMap((e) =>
    e.encryption_version === 3 && e.wrapped_item_key && e.encrypted_data
      ? [{ e, env: { wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data } }]
      : [],
  );

/**
 * The derivation a vault's newest entries name, over this device's floor: the newest bound entry's
 * wrap header (its key version and rounds), else the default rounds at the floor's version.
 * Settings below the floor, or a key version older than this device has seen, are refused here,
 * before anything is derived.
 */
function kdfFor(samples: ReturnType<typeof samplesOf>, floor: { keyVersion: number }): Kdf {
  const bound = samples.find((s) => isBound(s.env));
  if (!bound) return { iterations: PBKDF2_ITERATIONS, keyVersion: Math.max(1, floor.keyVersion) };
  const header = wrapHeader(bound.env.wrapped_item_key);
  if (!header) throw new SignInError("This passphrase does not open the vault");
  if (header.keyVersion < floor.keyVersion)
    throw new KeyRollbackError(header.keyVersion, floor.keyVersion);
  return { iterations: acceptKdf(header.iterations), keyVersion: header.keyVersion };
}

/**
 * The key derivation started at the click from what the page read as it loaded, while the
 * session and the vault's newest entries are asked again: the derivation (600,000 rounds, the
 * longest step) then runs beside the two round trips instead of after them. Null when that read
 * names settings this device refuses; the sign-in's own read then decides, as without it.
 */
async function deriveAhead(passphrase: string, ahead: SignInAhead): Promise<Derived | null> {
  const trust = await TrustStore.open(ahead.userId);
  try {
    const kdf = kdfFor(samplesOf(ahead.newest), await trust.floor());
    const root = passphraseRoot(passphrase, ahead.userId, kdf.iterations);
    await root;
    return { userId: ahead.userId, kdf, root };
  } catch {
    return null;
  } finally {
    trust.close();
  }
}

/**
 * The passphrase-derived keys, checked against the vault as before the account key: the newest
 * bound entry names the key version and rounds in its wrap header and must open in its place
 * (kdfFor). A vault of unbound entries only is checked against one of them (until this device saw
 * it bound); an empty vault accepts any passphrase, which then becomes the vault's.
 */
async function passphraseKeys(
  data: Entry[],
  floor: { keyVersion: number; bound: boolean },
  userId: string,
  roots: RootFor,
): Promise<{ keys: VaultKeys; empty: boolean }> {
  const samples = samplesOf(data);
  const kdf = kdfFor(samples, floor);
  const keys = await rootVaultKeys(await roots(kdf.iterations), kdf.iterations, kdf.keyVersion);
  const bound = samples.find((s) => isBound(s.env));
  if (bound) {
    await openEntry(keys, placeOf(userId, bound.e), bound.env);
    return { keys, empty: false };
  }
  if (samples[0]) {
    if (floor.bound || floor.keyVersion > 1) throw new LegacyRefusedError();
    await decryptLegacyEntry(keys, samples[0].env);
    return { keys, empty: false };
  }
  return { keys, empty: true };
}

/**
 * The vault keys for a passphrase: the account key its wrap holds (core/crypto/account-key.ts),
 * else (an account from before it) the passphrase-derived keys checked against the vault, whose
 * first wrap is then written. `newest` is the vault's newest entries when the caller already asked
 * for them; a root `derived` ahead is used only when it was derived for this user at the rounds
 * now asked for. What this device saw (key version, wrap revision) is raised once it opened.
 */
export async function vaultKeys(
  api: ApiClient,
  trust: TrustStore,
  userId: string,
  passphrase: string,
  ahead?: { newest: Promise<Entry[]>; derived?: Promise<Derived | null> },
  written?: (wrap: AccountKeyWrap) => void | Promise<void>,
): Promise<{ keys: VaultKeys; wrap: AccountKeyWrap | null }> {
  const data = ahead ? await ahead.newest : (await api.listPasswords(1, 20)).data;
  performance.mark("vault:sample-read");
  const floor = await trust.floor();
  let firstRead: Promise<AccountKeyWrap | null> | undefined;
  try {
    // Settings the vault's entries name that this device refuses end the sign-in before anything
    // more is asked, with an account key or without (a server lying about them lies to both).
    kdfFor(samplesOf(data), floor);
    firstRead = api.accountKey();
  } catch (e) {
    firstRead = Promise.reject(e);
  }
  firstRead.catch(() => undefined);
  const early = await ahead?.derived;
  const roots = rootsOf(
    passphrase,
    userId,
    early && early.userId === userId
      ? { iterations: early.kdf.iterations, root: early.root }
      : undefined,
  );
  try {
    const opened = await unlockAccount({
      io: {
        get: () => {
          const read = firstRead ?? api.accountKey();
          firstRead = undefined;
          return read;
        },
        put: (w) => api.putAccountKey(w),
      },
      userId,
      floor: { keyVersion: floor.keyVersion, revision: floor.revision ?? 0 },
      roots,
      legacy: (r) => passphraseKeys(data, floor, userId, r),
      written,
    });
    await trust.raise({ keyVersion: keyVersion(opened.keys), revision: opened.wrap?.revision });
    return { keys: opened.keys, wrap: opened.wrap };
  } catch (e) {
    if (
      e instanceof KdfRefusedError ||
      e instanceof KeyRollbackError ||
      e instanceof LegacyRefusedError ||
      e instanceof AccountKeyRollbackError
    )
      throw new SignInError(e.message);
    if (e instanceof DecryptionError)
      throw new SignInError("This passphrase does not open the vault");
    throw e;
  }
}

/**
 * Opens the vault of the signed-in user (the auth cookie) with the master passphrase. The session
 * and the vault's newest entries are asked at once, and with `ahead` (what the sign-in page read
 * as it loaded) the key derivation starts beside them (deriveAhead).
 */
export async function signIn(passphrase: string, ahead?: SignInAhead): Promise<Session> {
  const api = new ApiClient();
  const newest = api.listPasswords(1, 20).then((r) => r.data);
  // Settled below, or refused by an expired session first: never an unhandled rejection.
  newest.catch(() => undefined);
  const derived = ahead ? deriveAhead(passphrase, ahead) : undefined;
  const user = await providerSession(api);
  performance.mark("vault:session-answered");
  if (!user) throw new SignInError("The sign-in has expired: sign in again");
  const claims = { sub: user.id, email: user.email };
  const trust = await TrustStore.open(claims.sub);
  let keys: VaultKeys;
  let wrap: AccountKeyWrap | null;
  try {
    ({ keys, wrap } = await vaultKeys(api, trust, claims.sub, passphrase, { newest, derived }));
    performance.mark("vault:keys-derived");
  } finally {
    trust.close();
  }
  const db = await openDb();
  try {
    const previous = await db.session();
    const pulledFor = await db.meta<string>(PULLED_AHEAD);
    // Another user's data never stays behind a sign-in.
    if (
      previous
        ? previous.userId !== claims.sub
        : pulledFor !== undefined && pulledFor !== claims.sub
    )
      await db.clearAll();
    const session: Session = {
      userId: claims.sub,
      email: claims.email,
      signedInAt: new Date().toISOString(),
    };
    await db.setMeta(`keys:${claims.sub}`, keys);
    await keepWrap(db, claims.sub, wrap, await makeKeyCheck(keys, claims.sub));
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
export async function currentSession(
  db: LocalDb,
): Promise<{ session: Session; keys: VaultKeys | undefined } | null> {
  const session = await db.session();
  return session ? { session, keys: await db.keys(session.userId) } : null;
}

/**
 * Rule 7: clear the store, (the caller stops the timer,) and have the worker drop the sync cache.
 * This browser's push subscription goes first, while the session can still delete it.
 */
export async function signOut(db: LocalDb): Promise<void> {
  await removeThisBrowsersPush(new ApiClient());
  // A pull still being read in the worker would go on writing after the clear.
  stopPullWorker();
  await db.clearAll();
  // The cookie is HTTP-only: only the worker can clear it.
  await fetch("/api/auth/logout", { method: "POST", credentials: "same-origin" }).catch(
    () => undefined,
  );
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
