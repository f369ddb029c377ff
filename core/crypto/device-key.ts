/**
 * This browser's device key and its possession proofs (DPoP, RFC 9449). The key is an ECDSA P-256
 * pair made by WebCrypto with `extractable: false`: the private half can sign but can never be
 * read, not by a page script and not by a copy of this origin's storage, so a device bound to it
 * cannot be impersonated by its fingerprint alone. IndexedDB keeps the CryptoKey objects
 * themselves (structured clone keeps them non-extractable).
 */

const DB_NAME = "vault-device-key";
const STORE = "keys";
const KEY_ID = "dpop";
/** The server accepts its nonce for 300 s (src/lib/dpop.ts); a fresh one is asked for well before. */
const NONCE_REUSE_MS = 240_000;

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error("IndexedDB request failed"));
  });
}

function openStore(): Promise<IDBDatabase> {
  const open = indexedDB.open(DB_NAME, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(STORE);
  return request(open);
}

let pairPromise: Promise<CryptoKeyPair> | null = null;

/**
 * The key pair, made on first use. Two tabs may make one at once: `add` lets only the first be
 * stored, and the other tab then uses the stored one.
 */
export function deviceKeyPair(): Promise<CryptoKeyPair> {
  pairPromise ??= (async () => {
    const db = await openStore();
    try {
      const kept = await request<CryptoKeyPair | undefined>(
        db.transaction(STORE).objectStore(STORE).get(KEY_ID),
      );
      if (kept) return kept;
      const made = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
        "sign",
        "verify",
      ])) as CryptoKeyPair;
      try {
        await request(db.transaction(STORE, "readwrite").objectStore(STORE).add(made, KEY_ID));
        return made;
      } catch {
        const winner = await request<CryptoKeyPair | undefined>(
          db.transaction(STORE).objectStore(STORE).get(KEY_ID),
        );
        if (!winner) throw new Error("the device key could not be stored");
        return winner;
      }
    } finally {
      db.close();
    }
  })();
  pairPromise.catch(() => (pairPromise = null));
  return pairPromise;
}

/** The public half as the server takes it (a P-256 JWK without private or optional members). */
export async function publicJwk(
  pair: CryptoKeyPair,
): Promise<{ kty: "EC"; crv: "P-256"; x: string; y: string }> {
  const { x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { kty: "EC", crv: "P-256", x: x!, y: y! };
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const b64json = (v: unknown) => b64url(new TextEncoder().encode(JSON.stringify(v)));
const sha256b64url = async (s: string) =>
  b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))));

export type ProofFor = { method: string; url: string; accessToken: string | null };

/**
 * One proof JWT (RFC 9449 section 4.2): `typ` dpop+jwt, ES256 over the embedded public key; `htm`
 * and `htu` (the URL without query and fragment) name this request, `jti` and `iat` make it one of
 * a kind, `nonce` is the server's, and `ath` binds the access token where the caller holds it.
 * WebCrypto's ECDSA signature is already the r||s form JWS wants (RFC 7518 section 3.4).
 */
export async function signProof(
  pair: CryptoKeyPair,
  req: ProofFor,
  nonce: string,
): Promise<string> {
  const u = new URL(req.url);
  const header = { typ: "dpop+jwt", alg: "ES256", jwk: await publicJwk(pair) };
  const claims: Record<string, unknown> = {
    htm: req.method.toUpperCase(),
    htu: `${u.origin}${u.pathname}`,
    iat: Math.floor(Date.now() / 1000),
    jti: crypto.randomUUID(),
    nonce,
  };
  if (req.accessToken) claims.ath = await sha256b64url(req.accessToken);
  const input = `${b64json(header)}.${b64json(claims)}`;
  const signature = await crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" },
    pair.privateKey,
    new TextEncoder().encode(input),
  );
  return `${input}.${b64url(new Uint8Array(signature))}`;
}

/**
 * A signer for ApiClient's proof hook: the server's nonce (`fetchNonce`, a plain request that
 * itself carries no proof) is kept for four minutes. No key or no nonce (offline, signed out)
 * means no proof: the request goes as an unproven one and the server judges it so.
 */
export function proofSigner(
  fetchNonce: () => Promise<string | { nonce: string; at: number }>,
): (req: ProofFor) => Promise<string | null> {
  // `at`: when the nonce was issued, which is earlier than now for one another page kept.
  let nonce: { value: Promise<string>; at: number } | null = null;
  return async (req) => {
    try {
      if (!nonce || Date.now() - nonce.at > NONCE_REUSE_MS) {
        const got = fetchNonce();
        const entry = {
          value: got.then((v) => (typeof v === "string" ? v : v.nonce)),
          at: Date.now(),
        };
        nonce = entry;
        got.then(
          (v) => typeof v !== "string" && (entry.at = v.at),
          () => (nonce = null),
        );
      }
      return await signProof(await deviceKeyPair(), req, await nonce.value);
    } catch {
      return null;
    }
  };
}
