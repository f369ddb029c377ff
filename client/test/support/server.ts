/**
 * Which of the suite's servers this test file runs against. The global setup (worker.ts) starts
 * one complete set per file running at once (wrangler dev with its own D1, the OpenID provider and
 * its users, the automation components with their mailboxes, a Chromium): files that run side by side never
 * share a database, an outbox or a mailbox, and each file is alone on its set as it was alone on
 * the one set before. Vitest numbers the files running at once 1..maxWorkers (`VITEST_POOL_ID`, set
 * before the file loads and never held by two running files), so that number picks the set.
 */
import { inject } from "vitest";
import type { AutomationContext } from "./automation-components";

export type SuiteServer = {
  baseUrl: string;
  /** The local OpenID provider's issuer: browser sign-in goes through its login page. */
  idpIssuer: string;
  /** wrangler dev's local state (its D1): tests read what the server stored, e.g. the mail outbox. */
  workerState: string;
  automation: AutomationContext;
  /** The set's Chromium (its DevTools endpoint): `launch()` (browser.ts) connects to it. */
  chromiumEndpoint: string;
};

declare module "vitest" {
  export interface ProvidedContext {
    servers: SuiteServer[];
  }
}

/** This file's server set (its slot among the files running at once). */
export function server(): SuiteServer {
  const servers = inject("servers");
  const slot = Number(process.env.VITEST_POOL_ID ?? "1");
  const chosen = servers[slot - 1];
  if (!chosen)
    throw new Error(`no server set for slot ${slot}: the global setup started ${servers.length}`);
  return chosen;
}

/** The slot's number, for what a file writes outside its server (e.g. the built extension). */
export const slot = () => Number(process.env.VITEST_POOL_ID ?? "1");
