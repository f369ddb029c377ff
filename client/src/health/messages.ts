/**
 * What the health page and its Web Worker say to each other. The worker runs every check; the page
 * keeps the network: it answers the worker's range requests through the signed-in API client, so
 * only a five-character prefix ever leaves, exactly as when the checks ran on the page.
 */
import type { HealthItem, HealthReport } from "./detectors";

/** Entries go over in parts, and the report's entries come back in parts: each part is its own task to copy, so neither side's copy of a large vault is one long task. */
export const PART = 1000;

export type ItemsPart = { type: "items"; run: number; items: HealthItem[] };
export type CheckRequest = {
  type: "check";
  run: number;
  /** Hosts (and parent domains) whose services offer authenticator-app codes. */
  totp: string[];
  maxAgeDays: number;
  /** false: offline, exposure not looked up. */
  breach: boolean;
  now: number;
};
export type RangeAnswer = { type: "range"; ask: number; text?: string; error?: string };
export type ToWorker = ItemsPart | CheckRequest | RangeAnswer;

export type FromWorker =
  | { type: "range"; ask: number; prefix: string }
  | { type: "progress"; run: number; done: number; total: number }
  | { type: "entries"; run: number; entries: HealthReport["entries"] }
  /** The report without its entries, which came before it in parts. */
  | { type: "done"; run: number; report: HealthReport; ms: number }
  | { type: "error"; run: number; message: string };
