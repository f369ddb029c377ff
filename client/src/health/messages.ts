/**
 * What the health page and its Web Worker say to each other. The worker runs every check; the page
 * keeps the network: it answers the worker's range requests through the signed-in API client, so
 * only a five-character prefix ever leaves, exactly as when the checks ran on the page.
 */
import type { HealthItem, HealthReport } from "./detectors";

export type CheckRequest = {
  type: "check";
  run: number;
  items: HealthItem[];
  /** Hosts (and parent domains) whose services offer authenticator-app codes. */
  totp: string[];
  maxAgeDays: number;
  /** false: offline, exposure not looked up. */
  breach: boolean;
  now: number;
};
export type RangeAnswer = { type: "range"; ask: number; text?: string; error?: string };
export type ToWorker = CheckRequest | RangeAnswer;

export type FromWorker =
  | { type: "range"; ask: number; prefix: string }
  | { type: "progress"; run: number; done: number; total: number }
  | { type: "done"; run: number; report: HealthReport; ms: number }
  | { type: "error"; run: number; message: string };
