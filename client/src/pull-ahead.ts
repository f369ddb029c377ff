/**
 * A new browser's first pull, started on the sign-in page at the click on "Open vault" instead of
 * after the vault page has loaded: the pull needs the session only (it carries ciphertext, which
 * the keys being derived meanwhile will open), so it runs while the passphrase is derived and the
 * vault page loads. The vault page finds the first pages in the store and lists them from its
 * first read; its own sync engine resumes the pull from the stored position (a pull read page by
 * page: docs/decisions.md, Sync), since the navigation ends this page and its pull worker.
 */
import { ApiClient } from "./api";
import { openDb } from "./db";
import { PULLED_AHEAD } from "./session";
import { pull, withSyncLock } from "./sync-engine";

let started = false;

/**
 * Starts the pull once per page. `stored`: the user whose session the store holds, if any: another
 * user's store is cleared by the sign-in, which would throw the pull's pages away with it, so none
 * is started then.
 */
export function pullAhead(userId: string, stored: string | undefined): void {
  if (started || (stored !== undefined && stored !== userId)) return;
  started = true;
  void (async () => {
    const db = await openDb();
    try {
      // What another user's pull ahead left (their sign-in failed) goes before this one writes.
      const before = await db.meta<string>(PULLED_AHEAD);
      if (stored === undefined && before !== undefined && before !== userId) await db.clearAll();
      await db.setMeta(PULLED_AHEAD, userId);
      await withSyncLock(() => pull(db, new ApiClient(), userId));
    } catch {
      // Offline, cut by the navigation, or refused: the vault page's engine pulls (or resumes) as
      // it would have without this one.
    } finally {
      db.close();
    }
  })();
}
