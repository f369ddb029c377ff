/**
 * A new browser's first pull, started on the sign-in page at the click on "Open vault" instead of
 * after the vault page has loaded: the pull needs the session only (it carries ciphertext, which
 * the keys being derived meanwhile will open), so it runs while the passphrase is derived and the
 * vault page loads. It stops after its first page is stored, as a dropped connection leaves a
 * pull: the vault page lists that page from its first read of the store and its own sync engine
 * resumes the rest from the stored position (a pull read page by page: docs/decisions.md, Sync).
 */
import { ApiClient } from "./api";
import { openDb } from "./db";
import { PULLED_AHEAD } from "./session";
import { stopPullWorker } from "./pull-worker-client";
import { pull, withSyncLock } from "./sync-engine";

let started = false;

/**
 * Starts the pull once per page. `stored`: the user whose session the store holds, if any: another
 * user's store is cleared by the sign-in, which would throw the pull's pages away with it, so none
 * is started then. Settles once the pull's first page is stored, or once the pull has ended
 * without one (offline, refused): a navigation before then would cut the page the vault lists
 * first, and the vault page would ask the server for it again.
 */
export function pullAhead(userId: string, stored: string | undefined): Promise<void> {
  if (started || (stored !== undefined && stored !== userId)) return Promise.resolve();
  started = true;
  return new Promise<void>((settled) => {
    void (async () => {
      const db = await openDb();
      try {
        // What another user's pull ahead left (their sign-in failed) goes before this one writes.
        const before = await db.meta<string>(PULLED_AHEAD);
        if (stored === undefined && before !== undefined && before !== userId) await db.clearAll();
        await db.setMeta(PULLED_AHEAD, userId);
        // One page, then the pull is ended as cut: the vault page's first read of the store is then
        // a page, not the thousands a longer pull ahead would have stored (that read, and the pass
        // that opens what it read, come before the first row).
        // Pages are told of once parsed: the worker stops once the first is stored.
        const firstStored = (_: unknown, page: Promise<unknown>) =>
          void page.then(
            () => (settled(), stopPullWorker()),
            () => undefined,
          );
        await withSyncLock(() => pull(db, new ApiClient(), userId, firstStored));
      } catch {
        // Offline, cut by the navigation, or refused: the vault page's engine pulls (or resumes) as
        // it would have without this one.
      } finally {
        db.close();
        settled();
      }
    })();
  });
}
