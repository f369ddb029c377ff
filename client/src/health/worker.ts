/**
 * The health check's Web Worker (a module worker, its own bundle: scripts/build-client.mjs). The
 * strength estimator blocks for tens of milliseconds a password and one call cannot be sliced, so
 * the checks run here and the page only draws. Breach ranges are asked of the page (messages.ts)
 * and kept for the worker's life, a visit of the health page: a second check asks nothing again.
 */
import { BreachChecker } from "../../../core/health";
import { checkHealth, hostMatches, type HealthItem } from "./detectors";
import { PART, type FromWorker, type ToWorker } from "./messages";
import { isLongRandom, longWords, RANDOM_VERDICT } from "./random-path";
import { strengthTools } from "./strength";

// The DOM library types `self` as a window; in a worker it is the worker's own scope.
const scope = self as unknown as {
  postMessage(m: FromWorker): void;
  onmessage: ((ev: MessageEvent<ToWorker>) => void) | null;
};
const post = (m: FromWorker) => scope.postMessage(m);

let asks = 0;
const waiting = new Map<number, { resolve(text: string): void; reject(e: Error): void }>();
const breach = new BreachChecker(
  (prefix) =>
    new Promise<string>((resolve, reject) => {
      const ask = ++asks;
      waiting.set(ask, { resolve, reject });
      post({ type: "range", ask, prefix });
    }),
);

const tools = strengthTools().then(({ checker, dictionary, graphs }) => ({
  checker,
  words: longWords(dictionary, graphs),
}));
/** Progress goes out at most this often: a message per entry would flood the page. */
const PROGRESS_MS = 50;

/** Parts of the entries received for a run not yet started. */
const received = new Map<number, HealthItem[]>();

async function check(req: Extract<ToWorker, { type: "check" }>) {
  const started = performance.now();
  const items = received.get(req.run) ?? [];
  received.delete(req.run);
  const { checker, words } = await tools;
  const totp = new Set(req.totp);
  let last = 0;
  const report = await checkHealth(items, {
    strength: (p, inputs) => (isLongRandom(p, words) ? RANDOM_VERDICT : checker.check(p, inputs)),
    breach: req.breach ? breach : null,
    offersTotp: (h) => hostMatches(h, totp),
    maxAgeDays: req.maxAgeDays,
    now: req.now,
    slice: false,
    onProgress: (done, total) => {
      const t = performance.now();
      if (t - last < PROGRESS_MS && done < total) return;
      last = t;
      post({ type: "progress", run: req.run, done, total });
    },
  });
  for (let i = 0; i < report.entries.length; i += PART)
    post({ type: "entries", run: req.run, entries: report.entries.slice(i, i + PART) });
  post({
    type: "done",
    run: req.run,
    report: { ...report, entries: [] },
    ms: Math.round(performance.now() - started),
  });
}

scope.onmessage = (ev) => {
  const m = ev.data;
  if (m.type === "range") {
    const w = waiting.get(m.ask);
    waiting.delete(m.ask);
    if (m.text !== undefined) w?.resolve(m.text);
    else w?.reject(new Error(m.error ?? "the breach check failed"));
    return;
  }
  if (m.type === "items") {
    received.set(m.run, [...(received.get(m.run) ?? []), ...m.items]);
    return;
  }
  check(m).catch((e: unknown) =>
    post({ type: "error", run: m.run, message: e instanceof Error ? e.message : String(e) }),
  );
};
