import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sections } from "../src/shell/sections";
import {
  launch,
  newUser,
  signInWithProvider,
  submitSignIn,
  dashboardReady,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { base } from "./support/journey";
import { apiAs } from "./support/api";
import { keysOf } from "./support/seed";
import { makeSharingKeyPair } from "../../core/crypto";

// A clean console is part of finished: every page of the app, signed out, signing in (a new vault,
// its passphrase typed twice) and each section signed in, at desktop and phone widths, logs no
// error or warning, throws nothing, and has no same-origin request fail or answer an error.
let browser: Browser;
const PASSPHRASE = "clean console passphrase 1";

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

type Noise = { where: string; what: string };

/**
 * Listens for noise; the returned function, called once the pages are done, adds the service
 * worker's failed requests that were not the worker's half of a request the page dropped.
 */
function listen(context: BrowserContext, page: Page, noise: Noise[]): () => void {
  const origin = new URL(base()).origin;
  const where = () => new URL(page.url()).pathname;
  // The service worker answers the page's API requests with a fetch of its own. When the page
  // drops a request (it navigated), the page's request ends ERR_ABORTED and the worker's fetch,
  // cancelled with it, ends ERR_FAILED, sometimes just before, sometimes just after. The other
  // order happens too: the worker's fetch is cancelled first (ERR_ABORTED), its answer to the page
  // never comes, and the page's request ends ERR_FAILED. Each half is excused only against its
  // other half, one for one. A request that really fails is answered by the worker with a 503,
  // which the response listener reports.
  const dropped: string[] = [];
  const workerAborted: string[] = [];
  const workerFailed: (Noise & { request: string })[] = [];
  const pageFailed: (Noise & { request: string })[] = [];
  page.on("console", (m) => {
    // The development identity provider's pages are another origin, not the app's.
    if (new URL(page.url()).origin !== origin) return;
    if (m.type() === "error" || m.type() === "warning")
      noise.push({ where: where(), what: `console.${m.type()}: ${m.text()}` });
  });
  page.on("pageerror", (e) => noise.push({ where: where(), what: `thrown: ${e.message}` }));
  context.on("requestfailed", (r) => {
    if (new URL(r.url()).origin !== origin) return;
    const request = `${r.method()} ${r.url()}`;
    const failed = { where: where(), what: `failed: ${request} ${r.failure()?.errorText}` };
    // A request the page itself dropped (a section left, a pull aborted) is not a failure.
    if (/ERR_ABORTED/.test(r.failure()?.errorText ?? "")) {
      (r.serviceWorker() ? workerAborted : dropped).push(request);
      return;
    }
    (r.serviceWorker() ? workerFailed : pageFailed).push({ ...failed, request });
  });
  context.on("response", (r) => {
    if (new URL(r.url()).origin !== origin || r.status() < 400) return;
    noise.push({ where: where(), what: `${r.status()}: ${r.request().method()} ${r.url()}` });
  });
  const pairedWith = (halves: string[], { request, ...failed }: Noise & { request: string }) => {
    const i = halves.indexOf(request);
    if (i >= 0) halves.splice(i, 1);
    else noise.push(failed);
  };
  return () => {
    for (const f of workerFailed) pairedWith(dropped, f);
    for (const f of pageFailed) pairedWith(workerAborted, f);
  };
}

for (const width of [1280, 390]) {
  describe(`a clean console at ${width} px`, () => {
    it("signed out, signing in to a new vault, and every section signed in", async () => {
      const user = await newUser(`console${width}`);
      // The account's sharing key exists, as the vault's first unlock makes it (the invitations
      // work): the first-use lookup that found none was a 404 of its own, removed there.
      const keys = await keysOf(user, PASSPHRASE);
      const made = await makeSharingKeyPair(keys);
      const put = await (await apiAs(base(), user.token)).put("/api/sharing/public-key", {
        publicKey: made.publicKey,
        wrappedPrivateKey: made.wrappedPrivateKey,
      });
      expect(put.status).toBeLessThan(300);
      const context = await browser.newContext({
        baseURL: base(),
        viewport: { width, height: width > 500 ? 900 : 844 },
      });
      const page = await context.newPage();
      page.on("dialog", (d) => void d.accept());
      const noise: Noise[] = [];
      const settle = listen(context, page, noise);

      await page.goto("/");
      await page.getByRole("link", { name: "Sign in" }).waitFor();
      await signInWithProvider(page, user.token);
      await submitSignIn(page, PASSPHRASE);
      await page.waitForURL("**/vault");
      await dashboardReady(page);
      for (const s of sections) {
        await page.goto(s.path);
        await dashboardReady(page);
        await page.locator("#app-main h1").first().waitFor();
        // What a section asks for as it opens has answered.
        await page.waitForLoadState("networkidle").catch(() => undefined);
      }
      await page.goto("/keys");
      await page.locator("h1").first().waitFor();
      await page.waitForLoadState("networkidle").catch(() => undefined);
      await context.close();
      settle();
      expect(noise.map((n) => `${n.where} ${n.what}`)).toEqual([]);
    });
  });
}
