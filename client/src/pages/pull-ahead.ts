/**
 * A new browser's first pull, started on the sign-in page at the click on "Open vault" instead of
 * after the vault page has loaded: the pull needs the session only (it carries ciphertext, which
 * the keys being derived meanwhile will open), so it runs while the passphrase is derived and the
 * vault page loads. It stops after its first page is stored, as a dropped connection leaves a
 * pull: the vault page lists that page from its first read of the store and its own sync engine
 * resumes the rest from the stored position (docs/decisions/sync.md, "Sync: a pull read page by page, resumed where it was cut").
 */
import { ApiClient } from "../../../core/api";
import { openDb } from "../../../core/store";
import { PULLED_AHEAD } from "../../../core/session";
import { stopPullWorker, pull, withSyncLock } from "../../../core/sync";

let started = false;

/**
 * The pull ahead as the sign-in sees it. `firstPage` settles once the pull's first page is stored,
 * or once the pull has ended without one (offline, refused). `stop()` cuts the pull where it is and
 * settles once nothing of it can write to the store any more.
 */
export type PullAhead = { firstPage: Promise<void>; stop(): Promise<void> };

const NONE: PullAhead = { firstPage: Promise.resolve(), stop: () => Promise.resolve() };

/**
 * Starts the pull once per page. `stored`: the user whose session the store holds, if any: another
 * user's store is cleared by the sign-in, which would throw the pull's pages away with it, so none
 * is started then.
 *
 * A navigation away from the sign-in page ended the pull with the page's document, before the vault
 * page's first script ran. The vault now opens in that same document (pages/open-in-place.ts), so
 * the pull is ended here, before the vault starts, as the navigation ended it: otherwise it could
 * still hold the sync lock (the engine's first pull queued behind it), its worker and its request
 * as the vault starts, and write pages beside the vault's first read of the store. Its request is
 * aborted (the connection is freed; a held answer would have kept it open for the document's life)
 * and its worker ended (what it has not stored is cut; a page is stored with its position at once).
 */
export function pullAhead(userId: string, stored: string | undefined): PullAhead {
  if (started || (stored !== undefined && stored !== userId)) return NONE;
  started = true;
  const request = new AbortController();
  /** Whether it may write to the store now: all but while it waits for the sync lock. */
  let writing = true;
  let settled = () => {};
  const firstPage = new Promise<void>((r) => (settled = r));
  const cut = () => {
    request.abort();
    stopPullWorker();
  };
  const ended = (async () => {
    const db = await openDb();
    try {
      // What another user's pull ahead left (their sign-in failed) goes before this one writes.
      const before = await db.meta<string>(PULLED_AHEAD);
      if (stored === undefined && before !== undefined && before !== userId) await db.clearAll();
      await db.setMeta(PULLED_AHEAD, userId);
      // One page, then the pull is ended as cut: the vault's first read of the store is then a
      // page, not the thousands a longer pull ahead would have stored (that read, and the pass that
      // opens what it read, come before the first row). Pages are told of once parsed.
      const firstStored = (_: unknown, page: Promise<unknown>) =>
        void page.then(
          () => (settled(), cut()),
          () => undefined,
        );
      writing = false;
      await withSyncLock(async () => {
        // Stopped while another tab's sync held the lock: nothing is pulled.
        if (request.signal.aborted) return;
        writing = true;
        await pull(db, new ApiClient(), userId, firstStored, request.signal);
      });
    } catch {
      // Offline, cut, or refused: the vault's engine pulls (or resumes) as it would have without it.
    } finally {
      db.close();
      settled();
    }
  })();
  return {
    firstPage,
    stop() {
      cut();
      // Waiting for the lock, it will write nothing: the vault need not wait behind another tab's sync.
      return writing ? ended : Promise.resolve();
    },
  };
}
