import { createECDH } from "node:crypto";
import { chromium } from "playwright-core";
import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { extensionOrigin } from "../../../scripts/lib/extension-id.mjs";
import { DEV_CLIENT_ID, startDevOidc } from "../../../scripts/lib/dev-oidc.mjs";
import { runtimeEntry, startWorker, tcpForward } from "../../../bench/lib/harness.mjs";
import { freePort } from "../../../test/support/dovecot-lib.mjs";
import { startAutomationComponents } from "./automation-components";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    /** The local OpenID provider's issuer: browser sign-in goes through its login page. */
    idpIssuer: string;
    /** wrangler dev's local state (its D1): tests read what the server stored, e.g. the mail outbox. */
    workerState: string;
    /** The run's one Chromium (its DevTools endpoint): `launch()` (browser.ts) connects to it. */
    chromiumEndpoint: string;
  }
}

/**
 * Starts the local OpenID provider (tests may register users at it), the
 * automation journeys' components (automation-components.ts) and wrangler dev on its own port and
 * state directory, trusting that provider (wrangler dev builds the client fresh first: wrangler.toml's
 * [build] command, so the suite builds it once, not a second time here); the suite reaches the worker's runtime on `port`. Private destinations are allowed: the session-viewer
 * test's share logs in to a site on 127.0.0.1, and the automation journeys reach the local reset
 * site, mail and alias providers and Dovecot there too.
 */
export default async function setup(project: TestProject) {
  // One Chromium for the run, started beside the servers: launching one per file cost each file
  // 1.5 to 3 s and a second of CPU; each file still gets contexts of its own (browser.ts, launch).
  const debugPort = await freePort();
  const browser = chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, `--remote-debugging-port=${debugPort}`],
  });
  // Awaited below; a failure elsewhere first must not leave this one unhandled.
  browser.catch(() => undefined);
  // A free port unless one is named: several checkouts may run this suite on one machine.
  const port = process.env.BROWSER_TEST_PORT
    ? Number(process.env.BROWSER_TEST_PORT)
    : await freePort();
  const idp = await startDevOidc({
    port: await freePort(),
    redirectUris: [`http://127.0.0.1:${port}/api/auth/callback`],
    allowRegistration: true,
    quiet: true,
  });
  const components = await startAutomationComponents(`http://127.0.0.1:${port}`);
  // Web Push on (RFC 8292 keys for this run), so the switch reaches the browser's own subscribe.
  const vapid = createECDH("prime256v1");
  vapid.generateKeys();
  const push = {
    VAPID_PUBLIC_KEY: vapid.getPublicKey().toString("base64url"),
    VAPID_PRIVATE_KEY: vapid.getPrivateKey().toString("base64url"),
    VAPID_SUBJECT: "mailto:ops@vault.test",
  };
  const worker = await startWorker({
    port: await freePort(),
    name: "browser-suite",
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
  const front = await tcpForward(port, await runtimeEntry(new URL(worker.base).port));
  project.provide("baseUrl", `http://127.0.0.1:${port}`);
  project.provide("idpIssuer", idp.issuer);
  project.provide("workerState", worker.state);
  project.provide("automation", components.context);
  const shared = await browser;
  project.provide("chromiumEndpoint", `http://127.0.0.1:${debugPort}`);
  return async () => {
    await shared.close();
    await front.stop();
    worker.stop();
    await idp.stop();
    await components.stop();
  };
}
