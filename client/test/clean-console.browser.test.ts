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

// A clean console is part of finished: every page of the app, signed out, signing in (a new vault,
// its passphrase typed twice) and each section signed in, at desktop and phone widths, logs no
// error or warning, throws nothing, and has no same-origin request fail or answer an error.
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

type Noise = { where: string; what: string };

function listen(context: BrowserContext, page: Page, noise: Noise[]) {
  const origin = new URL(base()).origin;
  const where = () => new URL(page.url()).pathname;
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning")
      noise.push({ where: where(), what: `console.${m.type()}: ${m.text()}` });
  });
  page.on("pageerror", (e) => noise.push({ where: where(), what: `thrown: ${e.message}` }));
  context.on("requestfailed", (r) => {
    if (new URL(r.url()).origin !== origin) return;
    // A request the page itself dropped (a section left, a pull aborted) is not a failure.
    if (/ERR_ABORTED/.test(r.failure()?.errorText ?? "")) return;
    noise.push({
      where: where(),
      what: `failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`,
    });
  });
  context.on("response", (r) => {
    if (new URL(r.url()).origin !== origin || r.status() < 400) return;
    noise.push({ where: where(), what: `${r.status()}: ${r.request().method()} ${r.url()}` });
  });
}

for (const width of [1280, 390]) {
  describe(`a clean console at ${width} px`, () => {
    it("signed out, signing in to a new vault, and every section signed in", async () => {
      const user = await newUser(`console${width}`);
      const context = await browser.newContext({
        baseURL: base(),
        viewport: { width, height: width > 500 ? 900 : 844 },
      });
      const page = await context.newPage();
      page.on("dialog", (d) => void d.accept());
      const noise: Noise[] = [];
      listen(context, page, noise);

      await page.goto("/");
      await page.getByRole("link", { name: "Sign in" }).waitFor();
      await signInWithProvider(page, user.token);
      await submitSignIn(page, "clean console passphrase 1");
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
      expect(noise.map((n) => `${n.where} ${n.what}`)).toEqual([]);
    });
  });
}
