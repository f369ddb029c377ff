/**
 * What this device has learnt about a vault and its contacts, kept apart from the sync store
 * (database vault-trust) because it must outlive sign-out: a server that waits for the next
 * sign-in must still meet the same memory (docs/decisions/crypto.md, "Crypto: the clients hold against a malicious server").
 *
 * - floors: per user, the highest vault key version seen (an older key wrap is refused) and
 *   whether the vault was seen fully bound (an unbound envelope is refused after that).
 * - contacts: per user and contact email, the contact's sharing key first used (trust on first
 *   use) and whether the person compared its fingerprint with the contact. One record per contact,
 *   whatever the key is used for: sharing, emergency access, a dead man's switch recipient (and any
 *   later use of the same sharing key, such as members of a shared vault), so a key compared once
 *   is known everywhere until it changes.
 */
export const TRUST_DB = "vault-trust";
const TRUST_VERSION = 2;

/** What the key is about to be used for: it words the question, it does not split the record. */
export type KeyPurpose = "sharing" | "emergency" | "dead-man-switch";
export type PublicJwk = { kty: string; crv: string; x: string; y: string };
/** `revision`: the highest account key wrap revision seen (core/crypto/account-key.ts); absent before the first. */
export type Floor = { userId: string; keyVersion: number; bound: boolean; revision?: number };
type Contact = {
  userId: string;
  email: string;
  jwk: PublicJwk;
  fingerprint: string;
  pinnedAt: string;
  compared: boolean;
  comparedAt?: string;
};
/** Version 1 kept one pin per (user, purpose, email). */
type OldPin = {
  userId: string;
  purpose: string;
  email: string;
  jwk: PublicJwk;
  fingerprint: string;
  pinnedAt: string;
};

/**
 * ok: the pinned key; new: first seen (pinned only if the caller says so); changed: differs from
 * the pin (not used). `compared`: the person compared the pinned key's fingerprint with the contact.
 */
export type PinResult = {
  status: "ok" | "new" | "changed";
  fingerprint: string;
  pinned?: string;
  compared: boolean;
};
/** What the device knows of a contact's key, for showing beside the contact. */
export type KnownContact = {
  email: string;
  fingerprint: string;
  compared: boolean;
  pinnedAt: string;
  comparedAt?: string;
};
function req<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

/** RFC 7638 thumbprint input for an EC key: the required members in lexicographic order. */
const thumbprintInput = (k: PublicJwk) =>
  JSON.stringify({ crv: k.crv, kty: k.kty, x: k.x, y: k.y });

/**
 * Thirty digits in six groups, read aloud or compared side by side (like Signal's safety
 * numbers): each group is 5 bytes of the SHA-256 thumbprint reduced to 5 digits, about 100 bits.
 */
export async function fingerprint(k: PublicJwk): Promise<string> {
  const h = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(thumbprintInput(k))),
  );
  const groups: string[] = [];
  for (let g = 0; g < 6; g++) {
    let n = 0;
    for (let i = 0; i < 5; i++) n = n * 256 + h[g * 5 + i]!;
    groups.push(String(n % 100_000).padStart(5, "0"));
  }
  return groups.join(" ");
}

const emailKey = (email: string) => email.trim().toLowerCase();

/**
 * Version 1's pins become one record per contact. Where two purposes pinned different keys for
 * one contact, the later pin wins (a later pin was an explicit acceptance); none counts as compared,
 * as version 1 did not record it.
 */
function mergePins(pins: OldPin[]): Contact[] {
  const byContact = new Map<string, OldPin>();
  for (const p of pins) {
    const id = JSON.stringify([p.userId, p.email]);
    const seen = byContact.get(id);
    if (!seen || p.pinnedAt > seen.pinnedAt) byContact.set(id, p);
  }
  return [...byContact.values()].map((p) => ({
    userId: p.userId,
    email: p.email,
    jwk: p.jwk,
    fingerprint: p.fingerprint,
    pinnedAt: p.pinnedAt,
    compared: false,
  }));
}

const resultFor = (contact: Contact | undefined, fp: string): PinResult => {
  if (!contact) return { status: "new", fingerprint: fp, compared: false };
  if (contact.fingerprint !== fp)
    return { status: "changed", fingerprint: fp, pinned: contact.fingerprint, compared: false };
  return { status: "ok", fingerprint: fp, compared: contact.compared };
};

export class TrustStore {
  private constructor(
    private readonly idb: IDBDatabase,
    readonly userId: string,
  ) {
    // A newer page upgrading the database waits for this connection: let it go (this page reloads to use it).
    idb.onversionchange = () => idb.close();
  }

  static open(userId: string): Promise<TrustStore> {
    return new Promise((resolve, reject) => {
      const r = indexedDB.open(TRUST_DB, TRUST_VERSION);
      r.onupgradeneeded = (ev) => {
        const db = r.result;
        if (ev.oldVersion < 1) db.createObjectStore("floors", { keyPath: "userId" });
        if (ev.oldVersion < 2) {
          const contacts = db.createObjectStore("contacts", { keyPath: ["userId", "email"] });
          if (ev.oldVersion >= 1) {
            const all = r.transaction!.objectStore("pins").getAll() as IDBRequest<OldPin[]>;
            all.onsuccess = () => {
              for (const c of mergePins(all.result)) contacts.put(c);
              db.deleteObjectStore("pins");
            };
          }
        }
      };
      r.onsuccess = () => resolve(new TrustStore(r.result, userId));
      r.onerror = () => reject(r.error);
    });
  }

  close() {
    this.idb.close();
  }

  async floor(): Promise<Floor> {
    const f = await req(
      this.idb.transaction("floors").objectStore("floors").get(this.userId) as IDBRequest<
        Floor | undefined
      >,
    );
    return f ?? { userId: this.userId, keyVersion: 0, bound: false };
  }

  /** Records what was seen; neither value ever goes back. */
  async raise(seen: { keyVersion?: number; bound?: boolean; revision?: number }): Promise<void> {
    const tx = this.idb.transaction("floors", "readwrite");
    const store = tx.objectStore("floors");
    const f = ((await req(store.get(this.userId))) as Floor | undefined) ?? {
      userId: this.userId,
      keyVersion: 0,
      bound: false,
    };
    await req(
      store.put({
        userId: this.userId,
        keyVersion: Math.max(f.keyVersion, seen.keyVersion ?? 0),
        bound: f.bound || seen.bound === true,
        revision: Math.max(f.revision ?? 0, seen.revision ?? 0),
      }),
    );
  }

  private contact(email: string): Promise<Contact | undefined> {
    return req(
      this.idb
        .transaction("contacts")
        .objectStore("contacts")
        .get([this.userId, emailKey(email)]) as IDBRequest<Contact | undefined>,
    );
  }

  /** How `jwk` compares to the contact's pinned key, without pinning anything. */
  async peekKey(email: string, jwk: PublicJwk): Promise<PinResult> {
    return resultFor(await this.contact(email), await fingerprint(jwk));
  }

  /**
   * Trust on first use, for a page that shows the fingerprint it pins (the Keys page): the first
   * key seen for a contact is pinned, not compared; the same key again is ok; another key is
   * "changed" and stays unpinned until the person compares it and calls acceptKey.
   */
  async pinKey(email: string, jwk: PublicJwk): Promise<PinResult> {
    const result = await this.peekKey(email, jwk);
    if (result.status === "new") await this.acceptKey(email, jwk, false);
    return result;
  }

  /**
   * The person chose to use this key for the contact (seen first, or changed and compared): it
   * becomes the pin, `compared` saying whether they compared its fingerprint with the contact.
   */
  async acceptKey(email: string, jwk: PublicJwk, compared: boolean): Promise<string> {
    const fp = await fingerprint(jwk);
    const now = new Date().toISOString();
    const pin: Contact = {
      userId: this.userId,
      email: emailKey(email),
      jwk,
      fingerprint: fp,
      pinnedAt: now,
      compared,
      ...(compared ? { comparedAt: now } : {}),
    };
    await req(this.idb.transaction("contacts", "readwrite").objectStore("contacts").put(pin));
    return fp;
  }

  /**
   * The person compared `fp` with the contact and it matched: recorded only if it is still the
   * pinned key (a comparison of another key says nothing about the pin). False when it is not.
   */
  async markCompared(email: string, fp: string): Promise<boolean> {
    const tx = this.idb.transaction("contacts", "readwrite");
    const store = tx.objectStore("contacts");
    const pin = (await req(store.get([this.userId, emailKey(email)]))) as Contact | undefined;
    if (!pin || pin.fingerprint !== fp) return false;
    if (!pin.compared)
      await req(
        store.put({
          ...pin,
          compared: true,
          comparedAt: new Date().toISOString(),
        } satisfies Contact),
      );
    return true;
  }

  /** Every contact whose key this device pinned for this user, by email. */
  async contacts(): Promise<Map<string, KnownContact>> {
    const range = IDBKeyRange.bound([this.userId, ""], [this.userId, "\uffff"]);
    const all = (await req(
      this.idb.transaction("contacts").objectStore("contacts").getAll(range),
    )) as Contact[];
    return new Map(
      all.map((c) => [
        c.email,
        {
          email: c.email,
          fingerprint: c.fingerprint,
          compared: c.compared,
          pinnedAt: c.pinnedAt,
          ...(c.comparedAt ? { comparedAt: c.comparedAt } : {}),
        },
      ]),
    );
  }
}
