/**
 * The vault page's reader, in a dedicated Worker: opens entries (and computes their blind-index
 * tokens when asked) for the pass that fills in usernames, marks and folders. At 10,000 entries
 * that pass is tens of thousands of Web Crypto calls; run on the page, each completion is a task
 * in the page's queue ahead of keystrokes and paints. Here they queue in the worker instead, and
 * the page gets one message per batch.
 *
 * It holds nothing between messages: the keys come with each batch (a CryptoKey is structured-
 * cloneable and stays non-extractable) and are dropped when it ends. Only bound envelopes are
 * opened here; anything else (an unbound envelope to migrate, one that is refused) is answered as
 * not opened, and the page opens it itself, which migrates or explains it.
 */
import { blindIndexes, type EntrySecrets, openEntry } from "../crypto";
import type { ReaderRequest, ReaderResult } from "./entry-reader";

/** Entries in flight at once: enough to keep Web Crypto's threads busy. */
const PARALLEL = 32;

async function read(
  req: ReaderRequest,
  e: ReaderRequest["entries"][number],
): Promise<ReaderResult> {
  try {
    if (!e.wrapped_item_key || !e.encrypted_data) return { id: e.id };
    const place = { entryId: e.id, userId: req.userId, host: e.host, scheme: e.scheme };
    const { secrets } = await openEntry(
      req.keys,
      place,
      { wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data },
      { allowLegacy: false },
    );
    const tokens = req.tokens
      ? (
          await blindIndexes(req.keys, {
            name: e.name,
            website: e.site,
            username: secrets.username,
          })
        ).search_tokens
      : undefined;
    return { id: e.id, secrets: secrets as EntrySecrets, tokens };
  } catch {
    return { id: e.id };
  }
}

self.onmessage = async (ev: MessageEvent<ReaderRequest>) => {
  const req = ev.data;
  const results: ReaderResult[] = [];
  try {
    for (let i = 0; i < req.entries.length; i += PARALLEL)
      results.push(
        ...(await Promise.all(req.entries.slice(i, i + PARALLEL).map((e) => read(req, e)))),
      );
  } finally {
    // Every batch is answered, even one cut short: the page opens what is missing from the answer.
    (self as unknown as Worker).postMessage({ batch: req.batch, results });
  }
};
