/**
 * Opens entries in batches off the page's main thread (entry-reader-worker.ts), for the vault
 * page's pass over every entry. Where no worker can be made (a build without it, a test outside
 * the browser) the batch is opened on the page, as before.
 */
import { type EntrySecrets, type VaultKeys, placeOf } from "../crypto";
import type { LocalEntry } from "../store";

/** The URL of the worker's bundle, set by the client build (scripts/build-client.mjs). */
declare const __ENTRY_READER__: string | undefined;

export type ReaderRequest = {
  batch: number;
  keys: VaultKeys;
  userId: string;
  /** Whether to compute the blind-index tokens too (for entries that came from the server without them). */
  tokens: boolean;
  entries: {
    id: string;
    name: string;
    site: string;
    host: string;
    scheme: string;
    wrapped_item_key: string | null;
    encrypted_data: string | null;
  }[];
};
/** An entry opened (its secrets, and tokens when asked), or only its id: not opened here, the page tries. */
export type ReaderResult = { id: string; secrets?: EntrySecrets; tokens?: string[] };

/**
 * A worker started ahead of its first batch (startEntryReader), not yet taken by a reader: it
 * holds no keys (they come with each batch), so it can be started before the keys exist.
 */
let ahead: Worker | null = null;
/** Workers whose script failed before a reader took them (the error would otherwise be missed). */
const failed = new WeakSet<Worker>();

function newWorker(): Worker | null {
  const url = typeof __ENTRY_READER__ === "string" ? __ENTRY_READER__ : null;
  if (!url || typeof Worker === "undefined") return null;
  try {
    const worker = new Worker(url, { type: "module", name: "entry-reader" });
    worker.onerror = () => void failed.add(worker);
    return worker;
  } catch {
    return null;
  }
}

/**
 * Starts the reader's worker now, for the next EntryReader of this document to take: its script is
 * fetched, compiled and run while the page does other work (the sign-in's key derivation, the
 * shell's start), not after the vault's first read of the store, where it stood before the first row.
 */
export function startEntryReader(): void {
  ahead ??= newWorker();
}

export class EntryReader {
  private worker: Worker | null = null;
  private batch = 0;
  private readonly waiting = new Map<number, (r: ReaderResult[]) => void>();

  constructor(
    private readonly keys: VaultKeys,
    private readonly userId: string,
  ) {
    this.worker = ahead ?? newWorker();
    ahead = null;
    if (!this.worker) return;
    // A worker that fails (its script did not load) answers every batch as not opened: the page opens them.
    if (failed.has(this.worker)) {
      this.fail();
      return;
    }
    this.worker.onmessage = (ev: MessageEvent<{ batch: number; results: ReaderResult[] }>) => {
      this.waiting.get(ev.data.batch)?.(ev.data.results);
      this.waiting.delete(ev.data.batch);
    };
    this.worker.onerror = () => this.fail();
  }

  private fail() {
    this.worker?.terminate();
    this.worker = null;
    for (const [, done] of this.waiting) done([]);
    this.waiting.clear();
  }

  /** Opens `entries` in the worker; an entry missing from the answer, or without secrets, was not opened there. */
  read(entries: LocalEntry[], tokens: boolean): Promise<Map<string, ReaderResult>> {
    if (!this.worker || entries.length === 0) return Promise.resolve(new Map());
    const batch = ++this.batch;
    const req: ReaderRequest = {
      batch,
      keys: this.keys,
      userId: this.userId,
      tokens,
      entries: entries
        .filter((e) => e.encryption_version === 3)
        .map((e) => {
          const { host, scheme } = placeOf(this.userId, e);
          return {
            id: e.id,
            name: e.name,
            site: e.website ?? e.url ?? "",
            host,
            scheme,
            wrapped_item_key: e.wrapped_item_key,
            encrypted_data: e.encrypted_data,
          };
        }),
    };
    return new Promise((resolve) => {
      this.waiting.set(batch, (results) => resolve(new Map(results.map((r) => [r.id, r]))));
      this.worker!.postMessage(req);
    });
  }

  /** Ends the worker (the page is leaving or locking): nothing of the vault stays in it. */
  close() {
    this.fail();
  }
}
