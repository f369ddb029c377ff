/**
 * The pull worker: reads a page-framed pull's body (handed over by the page, which made the
 * request), parses it a line at a time and stores each page with its position in the local store
 * (workers have IndexedDB), exactly as the engine does on a page (sync-engine.ts `readPages`).
 * The page hears of each page once parsed (its changes in the list's order, sorted here rather
 * than on the page), again once stored, and how the pull ended. It holds no keys.
 */
import { OfflineError } from "./api";
import { openDb, type LocalDb } from "./db";
import { inListOrder } from "./entry-order";
import type { PullJob, PullNotice } from "./pull-worker-client";
import { readPages } from "./sync-engine";

let dbReady: Promise<LocalDb> | null = null;
const post = (n: PullNotice) => (self as unknown as Worker).postMessage(n);

self.onmessage = async (ev: MessageEvent<PullJob>) => {
  const { job, body, userId, since, notify } = ev.data;
  try {
    const db = await (dbReady ??= openDb());
    const report = await readPages(db, body, userId, since, (changes, stored) => {
      post({ job, kind: "page", changes: notify ? inListOrder(changes) : null });
      // Settled in the pull's order (the writes are), so the page pairs each with its page.
      stored.then(
        () => post({ job, kind: "stored" }),
        () => undefined,
      );
    });
    post({ job, kind: "done", report });
  } catch (e) {
    post(e instanceof OfflineError ? { job, kind: "cut" } : { job, kind: "failed", message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
  }
};
