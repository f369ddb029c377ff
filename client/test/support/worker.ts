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
 * directory, trusting that provider (wrangler dev builds the client fresh first: wrangler.toml's
 * [build] command, so the suite builds it once, not a second time here); the suite reaches the
 * worker's runtime on `port`. Private destinations are allowed: the session-viewer test's share
 * logs in to a site on 127.0.0.1, and the automation journeys reach the local reset site, mail and
 * alias providers and Dovecot there too.
 */
async function startServerSet(index: number, turn: (start: () => Promise<void>) => Promise<void>) {
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
  let worker!: Awaited<ReturnType<typeof startWorker>>;
  await turn(async () => {
    worker = await startWorker({
      port: await freePort(),
      name: `browser-suite-${index + 1}`,
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
  // The sets start side by side, but their wrangler devs one after the other: each one's [build]
  // deletes and rebuilds public/, which a wrangler dev already starting reads. No test runs until
  // all are started and quiet again below.
  let turns = Promise.resolve();
  const turn = (start: () => Promise<void>) => {
    const mine = turns.then(start);
    turns = mine.catch(() => undefined);
    return mine;
  };
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => startServerSet(i, turn)),
  );
  const sets = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const stopAll = async () => {
    for (const set of sets.reverse()) await set.stop();
  };
  try {
    const failed = started.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    // A later set's client build rewrote public/ under the earlier ones, whose wrangler dev then
    // reloads its assets: wait until every one has been quiet again.
    for (const set of sets) await set.worker.settled();
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
