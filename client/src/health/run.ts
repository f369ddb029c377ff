/**
 * The page's side of the health worker (worker.ts): starts it, hands it the opened entries, answers
 * its range requests through the page's range source (the signed-in API client), and reports
 * progress. One worker serves a visit of the health page, so its cached ranges serve a second check.
 */
import type { RangeSource } from "../../../core/health";
import type { HealthItem, HealthReport } from "./detectors";
import { PART, type CheckRequest, type FromWorker, type ToWorker } from "./messages";

/** The worker bundle's hashed URL, set by the client build (scripts/build-client.mjs). */
declare const __HEALTH_WORKER__: string;

export type CheckInput = {
  items: HealthItem[];
  totp: string[];
  maxAgeDays: number;
  breach: boolean;
  now?: number;
};

export class HealthWorker {
  private readonly worker: Worker;
  private runs = 0;
  private readonly pending = new Map<
    number,
    {
      entries: HealthReport["entries"];
      resolve(r: HealthReport): void;
      reject(e: Error): void;
      progress?: (done: number, total: number) => void;
    }
  >();

  constructor(range: RangeSource, url: string = __HEALTH_WORKER__) {
    this.worker = new Worker(url, { type: "module", name: "health" });
    const send = (m: ToWorker) => this.worker.postMessage(m);
    this.worker.onmessage = (ev: MessageEvent<FromWorker>) => {
      const m = ev.data;
      if (m.type === "range") {
        range(m.prefix).then(
          (text) => send({ type: "range", ask: m.ask, text }),
          (e: unknown) =>
            send({ type: "range", ask: m.ask, error: e instanceof Error ? e.message : String(e) }),
        );
        return;
      }
      const p = this.pending.get(m.run);
      if (!p) return;
      if (m.type === "progress") return p.progress?.(m.done, m.total);
      if (m.type === "entries") return void p.entries.push(...m.entries);
      this.pending.delete(m.run);
      if (m.type === "done") p.resolve({ ...m.report, entries: p.entries });
      else p.reject(new Error(m.message));
    };
    // A worker that fails to load or throws outside a check fails every check waiting on it.
    this.worker.onerror = (ev) => {
      ev.preventDefault();
      for (const p of this.pending.values())
        p.reject(new Error(ev.message || "the health worker failed"));
      this.pending.clear();
    };
  }

  async check(
    input: CheckInput,
    progress?: (done: number, total: number) => void,
  ): Promise<HealthReport> {
    const run = ++this.runs;
    const req: CheckRequest = {
      type: "check",
      run,
      totp: input.totp,
      maxAgeDays: input.maxAgeDays,
      breach: input.breach,
      now: input.now ?? Date.now(),
    };
    const done = new Promise<HealthReport>((resolve, reject) =>
      this.pending.set(run, { entries: [], resolve, reject, progress }),
    );
    for (let i = 0; i < input.items.length; i += PART) {
      this.worker.postMessage({
        type: "items",
        run,
        items: input.items.slice(i, i + PART),
      } satisfies ToWorker);
      // Each part's copy in a task of its own.
      if (i + PART < input.items.length) await new Promise((r) => setTimeout(r, 0));
    }
    this.worker.postMessage(req satisfies ToWorker);
    return done;
  }

  close() {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error("closed"));
    this.pending.clear();
  }
}
