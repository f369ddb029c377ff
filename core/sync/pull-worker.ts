/**
 * The pull worker: reads a page-framed pull's body (handed over by the page, which made the
 * request), parses it a line at a time and stores each page with its position in the local store
 * (workers have IndexedDB), exactly as the engine does on a page (sync-engine.ts `readPages`).
 * The page hears of each page once parsed (its changes in the list's order, sorted here rather
 * than on the page), again once stored, and how the pull ended. It holds no keys.
 */
import { OfflineError, type PreparedGet } from "../api";
import { BOOKMARK_HEADER } from "../../src/kernel/bookmarks";
import { openDb, type LocalDb, inListOrder } from "../store";
import type { PullJob, PullNotice } from "./pull-worker-client";
import { readPages } from "./sync-engine";

let dbReady: Promise<LocalDb> | null = null;
const post = (n: PullNotice) => (self as unknown as Worker).postMessage(n);

/** The requests this worker sent and has not finished reading, by job: the page may cut one. */
const requests = new Map<number, AbortController>();
/** Jobs whose answer was a 429, with its Retry-After. */
const limited = new Map<number, string | null>();

/**
 * Sends a pull's request (made by the page: its session, device proof and bookmarks) and returns
 * the answer's body when it is a page-framed stream; anything else is told as refused and the page
 * asks again itself, where its client turns a refusal into its error. Throws OfflineError when the
 * request fails or is cut.
 */
async function answerOf(
  job: number,
  request: PreparedGet,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array> | null> {
  let res: Response;
  try {
    res = await fetch(request.url, {
      headers: request.headers,
      credentials: request.credentials,
      cache: "no-store",
      signal,
    });
  } catch {
    throw new OfflineError();
  }
  const taken =
    res.ok && !!res.body && /\bapplication\/x-ndjson\b/.test(res.headers.get("content-type") ?? "");
  post({ job, kind: "answered", bookmark: res.headers.get(BOOKMARK_HEADER) });
  if (taken) return res.body;
  // A rate limit's refusal is told with its wait: asking again at once would only be refused again.
  if (res.status === 429) limited.set(job, res.headers.get("retry-after"));
  void res.body?.cancel().catch(() => undefined);
  return null;
}

self.onmessage = async (ev: MessageEvent<PullJob>) => {
  const msg = ev.data;
  if (msg.kind === "abort") return void requests.get(msg.job)?.abort();
  const { job, source, userId, since, notify } = msg;
  const cut = new AbortController();
  requests.set(job, cut);
  try {
    // The request goes out at once; the store opens while it is on its way.
    const [db, body] = await Promise.all([
      (dbReady ??= openDb()),
      "body" in source ? source.body : answerOf(job, source.request, cut.signal),
    ]);
    if (!body)
      return post(
        limited.has(job)
          ? { job, kind: "refused", status: 429, retryAfter: limited.get(job) ?? null }
          : { job, kind: "refused" },
      );
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
    post(
      e instanceof OfflineError || cut.signal.aborted
        ? { job, kind: "cut" }
        : {
            job,
            kind: "failed",
            message: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
          },
    );
  } finally {
    requests.delete(job);
    limited.delete(job);
  }
};
