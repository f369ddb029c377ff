/**
 * The page's side of the health worker (worker.ts): starts it, hands it the opened entries, answers
 * its range requests through the page's range source (the signed-in API client), and reports
 * progress. One worker serves a visit of the health page, so its cached ranges serve a second check.
 */
import type { RangeSource } from "./breach";
import type { HealthItem, HealthReport } from "./detectors";
import type { CheckRequest, FromWorker, ToWorker } from "./messages";

/** The worker bundle's hashed URL, set by the client build (scripts/build-client.mjs). */
declare const __HEALTH_WORKER__: string;

export type CheckInput = { items: HealthItem[]; totp: string[]; maxAgeDays: number; breach: boolean; now?: number };

export class HealthWorker {
  private readonly worker: Worker;
  private runs = 0;
  private readonly pending = new Map<number, { resolve(r: HealthReport): void; reject(e: Error): void; progress?: (done: number, total: number) => void }>();

  constructor(range: RangeSource, url: string = __HEALTH_WORKER__) {
    this.worker = new Worker(url, { type: "module", name: "health" });
    const send = (m: ToWorker) => this.worker.postMessage(m);
    this.worker.onmessage = (ev: MessageEvent<FromWorker>) => {
      const m = ev.data;
      if (m.type === "range") {
        range(m.prefix).then(
          (text) => send({ type: "range", ask: m.ask, text }),
          (e: unknown) => send({ type: "range", ask: m.ask, error: e instanceof Error ? e.message : String(e) }),
        );
        return;
      }
      const p = this.pending.get(m.run);
      if (!p) return;
      if (m.type === "progress") return p.progress?.(m.done, m.total);
      this.pending.delete(m.run);
      if (m.type === "done") p.resolve(m.report);
      else p.reject(new Error(m.message));
    };
    // A worker that fails to load or throws outside a check fails every check waiting on it.
    this.worker.onerror = (ev) => {
      ev.preventDefault();
      for (const p of this.pending.values()) p.reject(new Error(ev.message || "the health worker failed"));
      this.pending.clear();
    };
  }

  check(input: CheckInput, progress?: (done: number, total: number) => void): Promise<HealthReport> {
    const run = ++this.runs;
    const req: CheckRequest = { type: "check", run, items: input.items, totp: input.totp, maxAgeDays: input.maxAgeDays, breach: input.breach, now: input.now ?? Date.now() };
    return new Promise((resolve, reject) => {
      this.pending.set(run, { resolve, reject, progress });
      this.worker.postMessage(req);
    });
  }

  close() {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error("closed"));
    this.pending.clear();
  }
}
