/**
 * What this device has learnt about a vault and its contacts, kept apart from the sync store
 * (database vault-trust) because it must outlive sign-out: a server that waits for the next
 * sign-in must still meet the same memory (docs/decisions.md, "Crypto: the clients hold against a malicious server").
 *
 * - floors: per user, the highest vault key version seen (an older key wrap is refused) and
 *   whether the vault was seen fully bound (an unbound envelope is refused after that).
 * - pins: per user, contact email and purpose, the public key first seen (trust on first use).
 */
export const TRUST_DB = "vault-trust";
const TRUST_VERSION = 1;

export type KeyPurpose = "sharing" | "emergency";
export type PublicJwk = { kty: string; crv: string; x: string; y: string };
export type Floor = { userId: string; keyVersion: number; bound: boolean };
type Pin = { userId: string; purpose: KeyPurpose; email: string; jwk: PublicJwk; fingerprint: string; pinnedAt: string };

/** ok: the pinned key; new: first seen, now pinned; changed: differs from the pin (not used). */
export type PinResult = { status: "ok" | "new" | "changed"; fingerprint: string; pinned?: string };

function req<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

/** RFC 7638 thumbprint input for an EC key: the required members in lexicographic order. */
const thumbprintInput = (k: PublicJwk) => JSON.stringify({ crv: k.crv, kty: k.kty, x: k.x, y: k.y });

/**
 * Thirty digits in six groups, read aloud or compared side by side (like Signal's safety
 * numbers): each group is 5 bytes of the SHA-256 thumbprint reduced to 5 digits, about 100 bits.
 */
export async function fingerprint(k: PublicJwk): Promise<string> {
  const h = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(thumbprintInput(k))));
  const groups: string[] = [];
  for (let g = 0; g < 6; g++) {
    let n = 0;
    for (let i = 0; i < 5; i++) n = n * 256 + h[g * 5 + i]!;
    groups.push(String(n % 100_000).padStart(5, "0"));
  }
  return groups.join(" ");
}

export class TrustStore {
  private constructor(
    private readonly idb: IDBDatabase,
    readonly userId: string,
  ) {}

  static open(userId: string): Promise<TrustStore> {
    return new Promise((resolve, reject) => {
      const r = indexedDB.open(TRUST_DB, TRUST_VERSION);
      r.onupgradeneeded = () => {
        r.result.createObjectStore("floors", { keyPath: "userId" });
        r.result.createObjectStore("pins", { keyPath: ["userId", "purpose", "email"] });
      };
      r.onsuccess = () => resolve(new TrustStore(r.result, userId));
      r.onerror = () => reject(r.error);
    });
  }

  close() {
    this.idb.close();
  }

  async floor(): Promise<Floor> {
    const f = await req(this.idb.transaction("floors").objectStore("floors").get(this.userId) as IDBRequest<Floor | undefined>);
    return f ?? { userId: this.userId, keyVersion: 0, bound: false };
  }

  /** Records what was seen; neither value ever goes back. */
  async raise(seen: { keyVersion?: number; bound?: boolean }): Promise<void> {
    const tx = this.idb.transaction("floors", "readwrite");
    const store = tx.objectStore("floors");
    const f = ((await req(store.get(this.userId))) as Floor | undefined) ?? { userId: this.userId, keyVersion: 0, bound: false };
    await req(store.put({ userId: this.userId, keyVersion: Math.max(f.keyVersion, seen.keyVersion ?? 0), bound: f.bound || seen.bound === true }));
  }

  /**
   * Trust on first use: the first key seen for (email, purpose) is pinned; the same key again is
   * ok; another key is "changed" and stays unpinned until the person compares fingerprints and
   * calls acceptKey.
   */
  async pinKey(email: string, purpose: KeyPurpose, jwk: PublicJwk): Promise<PinResult> {
    const id = [this.userId, purpose, email.trim().toLowerCase()];
    const fp = await fingerprint(jwk);
    const tx = this.idb.transaction("pins", "readwrite");
    const store = tx.objectStore("pins");
    const pin = (await req(store.get(id))) as Pin | undefined;
    if (!pin) {
      await req(store.put({ userId: this.userId, purpose, email: id[2], jwk, fingerprint: fp, pinnedAt: new Date().toISOString() } satisfies Pin));
      return { status: "new", fingerprint: fp };
    }
    return pin.fingerprint === fp ? { status: "ok", fingerprint: fp } : { status: "changed", fingerprint: fp, pinned: pin.fingerprint };
  }

  /** How `jwk` compares to the pin for (email, purpose), without pinning anything. */
  async peekKey(email: string, purpose: KeyPurpose, jwk: PublicJwk): Promise<PinResult> {
    const fp = await fingerprint(jwk);
    const pin = (await req(this.idb.transaction("pins").objectStore("pins").get([this.userId, purpose, email.trim().toLowerCase()]))) as Pin | undefined;
    if (!pin) return { status: "new", fingerprint: fp };
    return pin.fingerprint === fp ? { status: "ok", fingerprint: fp } : { status: "changed", fingerprint: fp, pinned: pin.fingerprint };
  }

  /** The person checked the new fingerprint with the contact: it replaces the pin. */
  async acceptKey(email: string, purpose: KeyPurpose, jwk: PublicJwk): Promise<string> {
    const fp = await fingerprint(jwk);
    const pin: Pin = { userId: this.userId, purpose, email: email.trim().toLowerCase(), jwk, fingerprint: fp, pinnedAt: new Date().toISOString() };
    await req(this.idb.transaction("pins", "readwrite").objectStore("pins").put(pin));
    return fp;
  }
}
