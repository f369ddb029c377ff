import { execFileSync } from "node:child_process";
import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { ROOT } from "../../../scripts/lib/dev-identity.mjs";
import { startWorker } from "../../../bench/lib/harness.mjs";
import { freePort } from "../../../test/support/dovecot-lib.mjs";
import { startAutomationComponents } from "./automation-components";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

/**
 * Builds the client fresh and starts wrangler dev on its own port and state directory. Private
 * destinations are allowed: the session-viewer test's share logs in to a site on 127.0.0.1, and
 * the automation journeys reach the local reset site, mail provider and Dovecot there too.
 */
export default async function setup(project: TestProject) {
  execFileSync("node", ["scripts/build-client.mjs"], { cwd: ROOT, stdio: "inherit" });
  // A free port unless one is named: several checkouts may run this suite on one machine.
  const port = process.env.BROWSER_TEST_PORT ? Number(process.env.BROWSER_TEST_PORT) : await freePort();
  const components = await startAutomationComponents(`http://127.0.0.1:${port}`);
  const worker = await startWorker({ port, name: "browser-suite", vars: { OUTBOUND_ALLOW_PRIVATE: "true", ...components.vars } });
  project.provide("baseUrl", worker.base);
  project.provide("automation", components.context);
  return async () => {
    worker.stop();
    await components.stop();
  };
}
