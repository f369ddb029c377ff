/**
 * The local store (spec "Client offline behaviour" rule 3): database app-sync, version 1, with
 * stores entries (keyed by user and id), pending (queued mutations) and metadata (per-user cursors
 * and times, the signed-in session, the non-extractable vault keys). Used by pages and the
 * service worker alike, so it touches nothing but indexedDB.
 */
import type { Envelope, VaultKeys } from "../crypto";

export const DB_NAME = "app-sync";
export const DB_VERSION = 1;
/** Entries read per request, or written per task, when reading or writing a whole vault (see `entries`). */
const ENTRY_PAGE = 500;

export type Action = "create" | "update" | "delete";

/** An entry as the client keeps it: the server's sync shape plus the locally computed search tokens. */
export type LocalEntry = {
  userId: string;
  id: string;
  name: string;
  website: string | null;
  url: string | null;
  tags: string[];
  encryption_version: number;
  wrapped_item_key: string | null;
  encrypted_data: string | null;
  created_at: string;
  updated_at: string;
  /** A placeholder's (encryption_version -1) plaintext username, until this client encrypts it. */
  username?: string | null;
  /** Hashed tokens (crypto.blindIndexes); null when the envelope changed and they must be recomputed. */
  search_tokens: string[] | null;
  /** The spec's plaintext `has_passkey`, kept when true: the list's mark and filter read it unopened. */
  has_passkey?: boolean;
};

export type MutationData = {
  name: string;
  website?: string | null;
  url?: string | null;
  tags?: string[];
  wrapped_item_key: string;
  encrypted_data: string;
  encryption_version: 3;
  name_hash: string;
  username_hash: string;
  domain_hash?: string | null;
  search_tokens: string[];
  /** Blind hashes of the extra addresses' hosts (core/hosts/host-hashes.ts). */
  host_hashes?: string[];
  /** The spec's plaintext passkey fields: whether the sealed payload holds passkeys, and their site. */
  has_passkey?: boolean;
  passkey_label?: string | null;
};

export type PendingMutation = {
  seq?: number;
  userId: string;
  action: Action;
  entryId: string;
  data?: MutationData;
  clientUpdatedAt: string;
  lastError?: string;
};

export type Session = { userId: string; email: string | null; signedInAt: string };

function req<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

/** A user's entries in pages of the primary key ([userId] sorts before every [userId, id], an array after every id). */
async function pagedEntries(store: IDBObjectStore, userId: string): Promise<LocalEntry[]> {
  const out: LocalEntry[] = [];
  let range = IDBKeyRange.bound([userId], [userId, []]);
  for (;;) {
    const page = await req(store.getAll(range, ENTRY_PAGE) as IDBRequest<LocalEntry[]>);
    out.push(...page);
    if (page.length < ENTRY_PAGE) return out;
    range = IDBKeyRange.bound([userId, page[page.length - 1]!.id], [userId, []], true);
  }
}

/**
 * A pull's writes need not reach the disk before they count as done: a commit lost to a crash of
 * the machine is lost whole (the page with its position), and the pull resumes from the one before.
 * Waiting for each page's flush was most of a first sync's time in the store.
 */
const PULL_WRITE: IDBTransactionOptions = { durability: "relaxed" };

/** A change as a pull delivers it to the store: an entry to put, or the id of one to remove. */
export type PulledChange = LocalEntry | { id: string; tombstone: true };

async function queuedIds(tx: IDBTransaction, userId: string): Promise<Set<string>> {
  return new Set(
    (
      (await req(tx.objectStore("pending").index("byUser").getAll(userId))) as PendingMutation[]
    ).map((p) => p.entryId),
  );
}

/** One pulled change into the store; an unchanged envelope keeps the search tokens `prev` had. */
function writeChange(
  entries: IDBObjectStore,
  userId: string,
  c: PulledChange,
  prev: LocalEntry | undefined,
): IDBRequest {
  if ("tombstone" in c) return entries.delete([userId, c.id]);
  // A re-wrapped key (passphrase changed elsewhere) also voids the tokens: they may be under another index key.
  // So does another address (its host and scheme are the envelope's place): the entry is opened again in it.
  const sameEnvelope =
    prev &&
    prev.encrypted_data === c.encrypted_data &&
    prev.wrapped_item_key === c.wrapped_item_key &&
    prev.name === c.name &&
    prev.website === c.website &&
    prev.url === c.url;
  return entries.put({ ...c, search_tokens: sameEnvelope ? prev.search_tokens : null });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
  });
}

export function openDb(): Promise<LocalDb> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DB_NAME, DB_VERSION);
    open.onupgradeneeded = () => {
      const db = open.result;
      const entries = db.createObjectStore("entries", { keyPath: ["userId", "id"] });
      entries.createIndex("byUser", "userId");
      const pending = db.createObjectStore("pending", { keyPath: "seq", autoIncrement: true });
      pending.createIndex("byUser", "userId");
      pending.createIndex("byEntry", ["userId", "entryId"], { unique: true });
      db.createObjectStore("metadata", { keyPath: "key" });
    };
    open.onsuccess = () => resolve(new LocalDb(open.result));
    open.onerror = () => reject(open.error);
    open.onblocked = () =>
      reject(new Error("app-sync is blocked by another tab on an older version"));
  });
}

/** One queued mutation per entry (see applyLocal), inside the caller's transaction. */
async function enqueue(pending: IDBObjectStore, m: PendingMutation): Promise<void> {
  const prev =
    (await req(
      pending.index("byEntry").get([m.userId, m.entryId]) as IDBRequest<
        PendingMutation | undefined
      >,
    )) ?? null;
  if (!prev) {
    pending.add(m);
  } else if (prev.action === "create" && m.action === "delete") {
    pending.delete(prev.seq!);
  } else {
    const action: Action = prev.action === "create" && m.action === "update" ? "create" : m.action;
    pending.put({ ...m, seq: prev.seq, action });
  }
}

export class LocalDb {
  constructor(readonly idb: IDBDatabase) {}

  close() {
    this.idb.close();
  }

  /**
   * Every entry of the user, read in pages of the primary key: each page is deserialised in a task
   * of its own, where one read of thousands of entries (with their search tokens) would hold the
   * page's main thread for most of a second.
   */
  entries(userId: string): Promise<LocalEntry[]> {
    return pagedEntries(this.idb.transaction("entries").objectStore("entries"), userId);
  }

  async entry(userId: string, id: string): Promise<LocalEntry | undefined> {
    return req(
      this.idb.transaction("entries").objectStore("entries").get([userId, id]) as IDBRequest<
        LocalEntry | undefined
      >,
    );
  }

  /**
   * Stores search tokens unless the entry changed since they were computed. The wrapped key counts
   * too: a passphrase change keeps encrypted_data and changes only the key wrap and the index key.
   */
  async setTokens(
    userId: string,
    updates: {
      id: string;
      wrapped_item_key: string | null;
      encrypted_data: string | null;
      tokens: string[];
    }[],
  ): Promise<void> {
    const tx = this.idb.transaction("entries", "readwrite");
    const store = tx.objectStore("entries");
    for (const u of updates) {
      const now =
        (await req(store.get([userId, u.id]) as IDBRequest<LocalEntry | undefined>)) ?? null;
      if (
        now &&
        now.encrypted_data === u.encrypted_data &&
        now.wrapped_item_key === u.wrapped_item_key
      )
        store.put({ ...now, search_tokens: u.tokens });
    }
    await done(tx);
  }

  async pending(userId: string): Promise<PendingMutation[]> {
    const tx = this.idb.transaction("pending");
    const all = await req(
      tx.objectStore("pending").index("byUser").getAll(userId) as IDBRequest<PendingMutation[]>,
    );
    return all.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  }

  async pendingCount(userId: string): Promise<number> {
    return req(
      this.idb.transaction("pending").objectStore("pending").index("byUser").count(userId),
    );
  }

  /**
   * Writes a local change and queues its mutation in one transaction. One queued mutation per
   * entry: a change folds into what is already queued (create + update stays a create, anything +
   * delete becomes a delete, and create + delete cancels out, as the server never saw the entry).
   */
  async applyLocal(entry: LocalEntry | null, m: PendingMutation): Promise<void> {
    const tx = this.idb.transaction(["entries", "pending"], "readwrite");
    const entries = tx.objectStore("entries");
    const pending = tx.objectStore("pending");
    if (entry) entries.put(entry);
    else entries.delete([m.userId, m.entryId]);
    await enqueue(pending, m);
    await done(tx);
  }

  /**
   * Master passphrase change, the local half: the re-wrapped entries, their update mutations, the
   * new keys and the new key check are written in one transaction, so the store never holds a
   * vault key that does not open its entries.
   */
  async rotate(
    userId: string,
    changes: { entry: LocalEntry; mutation?: PendingMutation }[],
    keys: VaultKeys,
    keyCheck: Envelope,
  ): Promise<void> {
    const tx = this.idb.transaction(["entries", "pending", "metadata"], "readwrite");
    const entries = tx.objectStore("entries");
    const pending = tx.objectStore("pending");
    for (const c of changes) {
      entries.put(c.entry);
      if (c.mutation) await enqueue(pending, c.mutation);
    }
    const meta = tx.objectStore("metadata");
    meta.put({ key: `keys:${userId}`, value: keys });
    meta.put({ key: `keycheck:${userId}`, value: keyCheck });
    // The new key check carries no account key wrap: the one held wraps the keys replaced here.
    await done(tx);
  }

  /**
   * Settles a pushed mutation: it leaves the queue unless it changed while in flight (then the newer
   * change stays queued and keeps the local entry). `server` is the version the local entry takes:
   * an entry, a tombstone (remove), or undefined (keep what is there).
   */
  async settle(
    m: PendingMutation,
    server: LocalEntry | { tombstone: true } | undefined,
  ): Promise<void> {
    const tx = this.idb.transaction(["entries", "pending"], "readwrite");
    const pending = tx.objectStore("pending");
    const now = (await req(pending.get(m.seq!) as IDBRequest<PendingMutation | undefined>)) ?? null;
    if (now && now.clientUpdatedAt === m.clientUpdatedAt && now.action === m.action) {
      pending.delete(m.seq!);
      if (server && "tombstone" in server) tx.objectStore("entries").delete([m.userId, m.entryId]);
      else if (server) tx.objectStore("entries").put(server);
    }
    await done(tx);
  }

  async markFailed(m: PendingMutation, error: string): Promise<void> {
    const tx = this.idb.transaction("pending", "readwrite");
    const store = tx.objectStore("pending");
    const now = (await req(store.get(m.seq!) as IDBRequest<PendingMutation | undefined>)) ?? null;
    if (now && now.clientUpdatedAt === m.clientUpdatedAt) store.put({ ...now, lastError: error });
    await done(tx);
  }

  /**
   * Applies a pull. Entries with a queued mutation keep their local version: the push that runs
   * before every pull settles them. A full sync replaces every other entry of the user.
   */
  async applyPull(
    userId: string,
    changes: PulledChange[],
    full: boolean,
    cursor: string,
  ): Promise<void> {
    const tx = this.idb.transaction(["entries", "pending", "metadata"], "readwrite");
    const entries = tx.objectStore("entries");
    const queued = await queuedIds(tx, userId);
    const existing = new Map((await pagedEntries(entries, userId)).map((e) => [e.id, e]));
    if (full) {
      for (const id of existing.keys()) if (!queued.has(id)) entries.delete([userId, id]);
    }
    // One transaction (a pull applies whole or not at all), written a page at a time: each page's
    // writes are cloned in a task of their own, started from the last page's success event, which
    // keeps the transaction open. One loop over thousands would hold the main thread for seconds.
    let last: IDBRequest | null = null;
    for (const [n, c] of changes.entries()) {
      if (n % ENTRY_PAGE === 0 && last) await req(last);
      if (!queued.has(c.id)) last = writeChange(entries, userId, c, existing.get(c.id));
    }
    const meta = tx.objectStore("metadata");
    meta.put({ key: `cursor:${userId}`, value: cursor });
    meta.put({ key: `lastSync:${userId}`, value: new Date().toISOString() });
    await done(tx);
  }

  /**
   * The start of a pull read page by page (sync-engine.ts). A resumed one goes on from what the
   * store holds. Any other forgets a position left by an earlier cut; a full one then removes every
   * entry without a queued mutation, and hands them back, so an entry that comes back with the same
   * envelope keeps its search tokens. Null for a pull that is not full or is resumed: its pages
   * look up each entry's stored copy.
   */
  async beginPull(
    userId: string,
    resumed: boolean,
    full: boolean,
  ): Promise<Map<string, LocalEntry> | null> {
    if (resumed) return null;
    const removed = new Map<string, LocalEntry>();
    const tx = this.idb.transaction(["entries", "pending", "metadata"], "readwrite", PULL_WRITE);
    tx.objectStore("metadata").delete(`resume:${userId}`);
    if (full) {
      const entries = tx.objectStore("entries");
      const queued = await queuedIds(tx, userId);
      for (const e of await pagedEntries(entries, userId)) {
        if (queued.has(e.id)) continue;
        removed.set(e.id, e);
        entries.delete([userId, e.id]);
      }
    }
    await done(tx);
    return full ? removed : null;
  }

  /**
   * One page of a pull and the position to resume from after it, in one transaction: a pull cut
   * off later resumes after the last page stored, never before or after what the store holds.
   * `removed`: what a full pull's start took out of the store (beginPull). The store then holds no
   * other copy worth a look (an entry with a queued change is not written, and a copy an earlier
   * page of this pull wrote got its tokens from `removed` or none), so no entry is read back: on a
   * new browser's first sync those were one read per entry, 10,000, each a round trip to the
   * store in the pull worker between a page's parse and its writes.
   */
  async applyPage(
    userId: string,
    changes: PulledChange[],
    resume: string,
    removed: Map<string, LocalEntry> | null,
  ): Promise<void> {
    const tx = this.idb.transaction(["entries", "pending", "metadata"], "readwrite", PULL_WRITE);
    const entries = tx.objectStore("entries");
    const queued = await queuedIds(tx, userId);
    const prev = removed
      ? changes.map((c) => removed.get(c.id))
      : await Promise.all(
          changes.map((c) =>
            "tombstone" in c
              ? undefined
              : (req(entries.get([userId, c.id])) as Promise<LocalEntry | undefined>),
          ),
        );
    changes.forEach((c, i) => {
      if (!queued.has(c.id)) writeChange(entries, userId, c, prev[i]);
    });
    tx.objectStore("metadata").put({ key: `resume:${userId}`, value: resume });
    await done(tx);
  }

  /** The end of a pull read page by page: its clock becomes the cursor, and no position is left. */
  async finishPull(userId: string, cursor: string): Promise<void> {
    const tx = this.idb.transaction("metadata", "readwrite");
    const meta = tx.objectStore("metadata");
    meta.put({ key: `cursor:${userId}`, value: cursor });
    meta.put({ key: `lastSync:${userId}`, value: new Date().toISOString() });
    meta.delete(`resume:${userId}`);
    await done(tx);
  }

  async meta<T>(key: string): Promise<T | undefined> {
    const row = (await req(this.idb.transaction("metadata").objectStore("metadata").get(key))) as
      | { value: T }
      | undefined;
    return row?.value;
  }

  async setMeta(key: string, value: unknown): Promise<void> {
    const tx = this.idb.transaction("metadata", "readwrite");
    tx.objectStore("metadata").put({ key, value });
    await done(tx);
  }

  session(): Promise<Session | undefined> {
    return this.meta<Session>("session");
  }

  /** CryptoKeys are structured-cloneable; non-extractable ones stay non-extractable in storage. */
  keys(userId: string): Promise<VaultKeys | undefined> {
    return this.meta<VaultKeys>(`keys:${userId}`);
  }

  /** The offline passphrase check (crypto.makeKeyCheck), kept while the vault is locked. */
  keyCheck(userId: string): Promise<Envelope | undefined> {
    return this.meta<Envelope>(`keycheck:${userId}`);
  }

  /** Lock: the keys leave the store; the encrypted entries, the queue and the session stay. */
  async dropKeys(userId: string): Promise<void> {
    const tx = this.idb.transaction("metadata", "readwrite");
    tx.objectStore("metadata").delete(`keys:${userId}`);
    await done(tx);
  }

  /** Logout (rule 7): every store is emptied, keys and cursors included. */
  async clearAll(): Promise<void> {
    const tx = this.idb.transaction(["entries", "pending", "metadata"], "readwrite");
    for (const s of ["entries", "pending", "metadata"]) tx.objectStore(s).clear();
    await done(tx);
  }
}
