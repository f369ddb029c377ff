import { execFileSync } from "node:child_process";
import { vapidKeys } from "../../../scripts/lib/vapid.mjs";
import { chromium } from "playwright-core";
import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { extensionOrigin } from "../../../scripts/lib/extension-id.mjs";
import { DEV_CLIENT_ID, startDevOidc } from "../../../scripts/lib/dev-oidc.mjs";
import { runtimeEntry, startWorker, tcpForward } from "../../../bench/lib/harness.mjs";
import { freePort } from "../../../test/support/dovecot-lib.mjs";
import { startAutomationComponents } from "./automation-components";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium";
import type { SuiteServer } from "./server";

/**
 * One server set: the local OpenID provider (tests may register users at it), the automation
 * journeys' components (automation-components.ts) and wrangler dev on its own port and state
 * directory, trusting that provider, serving public/ as the global setup found or built it (never
 * rebuilding it: bench/lib/harness.mjs, configWithoutBuild); the suite reaches the
 * worker's runtime on `port`. Private destinations are allowed: the session-viewer test's share
 * logs in to a site on 127.0.0.1, and the automation journeys reach the local reset site, mail and
 * alias providers and Dovecot there too.
 */
async function startServerSet(index: number) {
  // The set's Chromium, started beside its servers: launching one per file cost each file 1.5 to
  // 3 s and a second of CPU; each file gets contexts of its own (browser.ts, launch). One per set,
  // not one for the run: a connection over the DevTools protocol adopts every page of contexts it
  // did not make into its default context (playwright-core, CRBrowser), so two files on one
  // Chromium would each follow, and on failure screenshot, the other's pages.
  const debugPort = await freePort();
  const browser = chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, `--remote-debugging-port=${debugPort}`],
  });
  // Awaited below; a failure elsewhere first must not leave this one unhandled.
  browser.catch(() => undefined);
  // The set's front door listens from here on (a port of its own unless one is named: several
  // checkouts may run this suite on one machine), forwarding to the runtime once it runs. Chosen
  // free and bound only after the worker started, the port was once taken in between by one of
  // the many connections the start makes (EADDRINUSE, and the whole suite refused to start).
  let reach!: (runtimePort: number) => void;
  const runtime = new Promise<number>((resolve) => (reach = resolve));
  const front = await tcpForward(
    process.env.BROWSER_TEST_PORT ? Number(process.env.BROWSER_TEST_PORT) + index : 0,
    runtime,
  );
  const port: number = front.port;
  const idp = await startDevOidc({
    port: await freePort(),
    redirectUris: [`http://127.0.0.1:${port}/api/auth/callback`],
    allowRegistration: true,
    quiet: true,
  });
  const components = await startAutomationComponents(`http://127.0.0.1:${port}`);
  // Web Push on (RFC 8292 keys for this run), so the switch reaches the browser's own subscribe.
  const vapid = vapidKeys();
  const push = {
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    VAPID_SUBJECT: "mailto:ops@vault.test",
  };
  const worker = await startWorker({
    port: await freePort(),
    name: `browser-suite-${index + 1}`,
    build: false,
    vars: {
      OUTBOUND_ALLOW_PRIVATE: "true",
      CORS_ORIGINS: extensionOrigin(),
      IDP_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: DEV_CLIENT_ID,
      OIDC_SCOPES: "openid email vault",
      ...push,
      ...components.vars,
    },
  });
  // The browser and the tests reach the runtime itself on `port`, not wrangler dev's reload proxy
  // (bench/lib/harness.mjs, runtimeEntry).
  reach(await runtimeEntry(new URL(worker.base).port));
  const shared = await browser;
  const server: SuiteServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    idpIssuer: idp.issuer,
    workerState: worker.state,
    automation: components.context,
    chromiumEndpoint: `http://127.0.0.1:${debugPort}`,
  };
  return {
    server,
    worker,
    async stop() {
      await shared.close();
      await front.stop();
      worker.stop();
      await idp.stop();
      await components.stop();
    },
  };
}

/**
 * Starts one server set for each file that may run at once
 * (`maxWorkers`, vitest.browser.config.mts); each test file runs against the set of its slot
 * (server.ts).
 */
export default async function setup(project: TestProject) {
  const count = project.config.maxWorkers;
  // The client is built once here, before any set starts, and no set rebuilds it (startWorker's
  // `build: false`), so the sets can start side by side. scripts/test.sh says the dry run built it
  // already (SUITE_CLIENT_BUILT=1); run by itself, the suite builds what the working tree holds.
  if (process.env.SUITE_CLIENT_BUILT !== "1")
    execFileSync("node", ["scripts/build-client.mjs"], { stdio: "ignore" });
  // With nothing rebuilt under them, the sets start side by side.
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => startServerSet(i)),
  );
  const sets = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const stopAll = async () => {
    for (const set of sets.reverse()) await set.stop();
  };
  try {
    const failed = started.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  } catch (e) {
    await stopAll();
    throw e;
  }
  project.provide(
    "servers",
    sets.map((s) => s.server),
  );
  return stopAll;
}
