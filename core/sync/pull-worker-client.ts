/**
 * The page's side of the pull worker (pull-worker.ts). The page keeps the request (its session,
 * device proof and bookmarks are made here) and hands the answer's body, a transferable stream, to
 * the worker, which reads, parses and stores it page by page; the page hears of each page once it
 * is parsed (its changes), and again once it is stored. At 10,000 entries that reading, parsing
 * and the store's writes were seconds of the page's thread during a first sync.
 */
import { ApiError, BUSY_SENTENCE, OfflineError, retryAfterOf, type PreparedGet } from "../api";
import type { PulledChange } from "../store";

export type PullReport = { changes: number; full: boolean };
/**
 * Told each page of a pull once it is parsed, ahead of the store's writes: a page on screen can
 * show it before the pull ends. `stored` resolves once the store holds the page, and rejects if it
 * never will (the pull was cut or its store failed first): until then a read of the store lacks it.
 */
export type PageListener = (changes: PulledChange[], stored: Promise<void>) => void;

/** The URL of the worker's bundle, set by the client and extension builds. */
declare const __PULL_WORKER__: string | undefined;

/**
 * What the page asks: one pull to read into the store, either its request to send (`request`: the
 * worker fetches and reads the answer where it arrives) or an answer's body the page fetched.
 * `notify`: whether to send each page's changes back. `abort`: that pull's request is cut.
 */
export type PullJob =
  | {
      job: number;
      kind: "pull";
      source: { request: PreparedGet } | { body: ReadableStream<Uint8Array> };
      userId: string;
      since: string | undefined;
      notify: boolean;
    }
  | { job: number; kind: "abort" };
/**
 * What the worker says: the answer's arrival (its bookmarks; an answer that is not a stream of pages
 * ends the pull as `refused`, and the page asks again), each page parsed (its changes when asked
 * for), stored (in the same order), then how the pull ended.
 */
export type PullNotice =
  | { job: number; kind: "answered"; bookmark: string | null }
  | { job: number; kind: "refused"; status?: 429; retryAfter?: string | null }
  | { job: number; kind: "page"; changes: PulledChange[] | null }
  | { job: number; kind: "stored" }
  | { job: number; kind: "done"; report: PullReport }
  | { job: number; kind: "cut" }
  | { job: number; kind: "failed"; message: string };

type Ending = Exclude<PullNotice, { kind: "page" | "stored" | "answered" }>;
type Waiting = {
  onPage?: PageListener;
  onAnswer?: (bookmark: string | null) => void;
  settle: (n: Ending) => void;
  unstored: { stored: () => void; lost: () => void }[];
};

let worker: Worker | null = null;
/** Set once a worker could not start or failed: pulls are read on this thread from then on. */
let broken = false;
let jobs = 0;
const waiting = new Map<number, Waiting>();

function start(): Worker | null {
  if (worker || broken) return worker;
  const url = typeof __PULL_WORKER__ === "string" ? __PULL_WORKER__ : null;
  if (!url || typeof Worker === "undefined") return null;
  try {
    worker = new Worker(url, { type: "module", name: "vault-pull" });
  } catch {
    broken = true;
    return null;
  }
  worker.onmessage = (ev: MessageEvent<PullNotice>) => {
    const n = ev.data;
    const w = waiting.get(n.job);
    if (!w) return;
    if (n.kind === "answered") {
      performance.mark("vault:pull-answered");
      w.onAnswer?.(n.bookmark);
      return;
    }
    if (n.kind === "page") {
      performance.mark("vault:page-parsed");
      const stored = new Promise<void>((resolve, reject) =>
        w.unstored.push({ stored: resolve, lost: () => reject(new OfflineError()) }),
      );
      stored.catch(() => undefined);
      try {
        if (n.changes) w.onPage?.(n.changes, stored);
      } catch (e) {
        // A listener's failure is its own: the pull goes on.
        console.error(e);
      }
      return;
    }
    if (n.kind === "stored") {
      performance.mark("vault:page-stored");
      w.unstored.shift()?.stored();
      return;
    }
    end(n.job, n);
  };
  // A worker that fails to load or dies: its pulls end as cut (what it stored stays, with its
  // position, and the engine's retry resumes on this thread).
  worker.onerror = () => {
    broken = true;
    worker?.terminate();
    worker = null;
    cutAll();
  };
  return worker;
}

/** A pull ends: the pages it told of and did not store never will be. */
function end(job: number, n: Ending) {
  const w = waiting.get(job);
  if (!w) return;
  waiting.delete(job);
  for (const p of w.unstored.splice(0)) p.lost();
  w.settle(n);
}

function cutAll() {
  for (const job of [...waiting.keys()]) end(job, { job, kind: "cut" });
}

/**
 * Starts the worker ahead of a pull (the sign-in form appearing, the vault's shell starting): the
 * worker sends the pull's request, so its script's load would otherwise come before the request.
 * True when a worker runs (or is starting).
 */
export function warmPullWorker(): boolean {
  return start() !== null;
}

/**
 * Reads a page-framed pull's body in the worker. Resolves to the pull's report, or null when no
 * worker can take it (the caller reads it itself); throws OfflineError for a body cut off.
 */
export function pullInWorker(
  body: ReadableStream<Uint8Array>,
  userId: string,
  since: string | undefined,
  onPage?: PageListener,
): Promise<PullReport> | null {
  return job({ body }, userId, since, onPage) as Promise<PullReport> | null;
}

/**
 * Sends the pull's request from the worker, which reads the answer as it arrives. A body fetched
 * here and handed over was pumped through this thread chunk by chunk (a transferred stream is read
 * on the side that made it and posted across): at 10,000 entries hundreds of the page's tasks
 * during a first sync, on the thread that draws the list. Resolves to the pull's report; to "refused"
 * for an answer the worker does not take (the caller asks again, through its own error handling);
 * null when no worker can take it. `onAnswer` hears the answer's bookmarks; `signal` cuts the request.
 */
export function fetchPullInWorker(
  request: PreparedGet,
  userId: string,
  since: string | undefined,
  onAnswer: (bookmark: string | null) => void,
  onPage?: PageListener,
  signal?: AbortSignal,
): Promise<PullReport | "refused"> | null {
  return job({ request }, userId, since, onPage, onAnswer, signal);
}

function job(
  source: { request: PreparedGet } | { body: ReadableStream<Uint8Array> },
  userId: string,
  since: string | undefined,
  onPage?: PageListener,
  onAnswer?: (bookmark: string | null) => void,
  signal?: AbortSignal,
): Promise<PullReport | "refused"> | null {
  const w = start();
  if (!w) return null;
  const id = ++jobs;
  return new Promise<PullReport | "refused">((resolve, reject) => {
    const abort = () => w.postMessage({ job: id, kind: "abort" } satisfies PullJob);
    signal?.addEventListener("abort", abort, { once: true });
    waiting.set(id, {
      onPage,
      onAnswer,
      unstored: [],
      settle: (n) => {
        signal?.removeEventListener("abort", abort);
        if (n.kind === "done") resolve(n.report);
        else if (n.kind === "refused" && n.status === 429)
          reject(
            new ApiError(
              429,
              { error: BUSY_SENTENCE, code: "RATE_LIMITED", status: 429 },
              retryAfterOf(n.retryAfter ?? null),
            ),
          );
        else if (n.kind === "refused") resolve("refused");
        else reject(n.kind === "cut" ? new OfflineError() : new Error(n.message));
      },
    });
    const msg: PullJob = { job: id, kind: "pull", source, userId, since, notify: !!onPage };
    w.postMessage(msg, "body" in source ? [source.body as unknown as Transferable] : []);
    if (signal?.aborted) abort();
  });
}

/** Ends the worker (sign-out, lock): a pull under way ends as cut. */
export function stopPullWorker() {
  worker?.terminate();
  worker = null;
  cutAll();
}
