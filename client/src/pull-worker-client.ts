/**
 * The page's side of the pull worker (pull-worker.ts). The page keeps the request (its session,
 * device proof and bookmarks are made here) and hands the answer's body, a transferable stream, to
 * the worker, which reads, parses and stores it page by page; the page hears of each page once it
 * is parsed (its changes), and again once it is stored. At 10,000 entries that reading, parsing
 * and the store's writes were seconds of the page's thread during a first sync.
 */
import { OfflineError } from "./api";
import type { PulledChange } from "./db";

export type PullReport = { changes: number; full: boolean };
/**
 * Told each page of a pull once it is parsed, ahead of the store's writes: a page on screen can
 * show it before the pull ends. `stored` resolves once the store holds the page, and rejects if it
 * never will (the pull was cut or its store failed first): until then a read of the store lacks it.
 */
export type PageListener = (changes: PulledChange[], stored: Promise<void>) => void;

/** The URL of the worker's bundle, set by the client and extension builds. */
declare const __PULL_WORKER__: string | undefined;

/** What the page asks: one pull's body to read into the store. `notify`: whether to send each page's changes back. */
export type PullJob = { job: number; body: ReadableStream<Uint8Array>; userId: string; since: string | undefined; notify: boolean };
/** What the worker says: a page parsed (its changes when asked for), stored (in the same order), then how the pull ended. */
export type PullNotice =
  | { job: number; kind: "page"; changes: PulledChange[] | null }
  | { job: number; kind: "stored" }
  | { job: number; kind: "done"; report: PullReport }
  | { job: number; kind: "cut" }
  | { job: number; kind: "failed"; message: string };

type Waiting = { onPage?: PageListener; settle: (n: Exclude<PullNotice, { kind: "page" | "stored" }>) => void; unstored: { stored: () => void; lost: () => void }[] };

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
    if (n.kind === "page") {
      performance.mark("vault:page-parsed");
      const stored = new Promise<void>((resolve, reject) => w.unstored.push({ stored: resolve, lost: () => reject(new OfflineError()) }));
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
function end(job: number, n: Exclude<PullNotice, { kind: "page" | "stored" }>) {
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
 * Starts the worker ahead of a pull's request, so its script loads while the request is on its
 * way: made when the answer came, it was the script's load (over a second of a first sync under
 * load) between the answer and its first page stored.
 */
export function warmPullWorker() {
  start();
}

/**
 * Reads a page-framed pull's body in the worker. Resolves to the pull's report, or null when no
 * worker can take it (the caller reads it itself); throws OfflineError for a body cut off.
 */
export function pullInWorker(body: ReadableStream<Uint8Array>, userId: string, since: string | undefined, onPage?: PageListener): Promise<PullReport> | null {
  const w = start();
  if (!w) return null;
  const job = ++jobs;
  return new Promise<PullReport>((resolve, reject) => {
    waiting.set(job, {
      onPage,
      unstored: [],
      settle: (n) => (n.kind === "done" ? resolve(n.report) : reject(n.kind === "cut" ? new OfflineError() : new Error(n.message))),
    });
    const msg: PullJob = { job, body, userId, since, notify: !!onPage };
    w.postMessage(msg, [body as unknown as Transferable]);
  });
}

/** Ends the worker (sign-out, lock): a pull under way ends as cut. */
export function stopPullWorker() {
  worker?.terminate();
  worker = null;
  cutAll();
}
