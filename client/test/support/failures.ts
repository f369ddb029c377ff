/**
 * What a failed browser test leaves behind: a screenshot of every page still open and the last
 * things each page said (console, page errors, failed or refused requests, the toast). A flaky
 * failure is a race to find; a timeout alone does not say which side stalled.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";

const KEEP = 40;
const browsers = new Set<Browser>();
/** Contexts without a browser object of their own (launchPersistentContext: the extension's). */
const persistent = new Set<BrowserContext>();
const heard = new WeakMap<Page, string[]>();

function note(page: Page, line: string) {
  const lines = heard.get(page) ?? [];
  lines.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
  if (lines.length > KEEP) lines.shift();
  heard.set(page, lines);
}

function listen(page: Page) {
  if (heard.has(page)) return;
  heard.set(page, []);
  page.on("console", (m) => note(page, `console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => note(page, `page error: ${e.message}`));
  page.on("requestfailed", (r) =>
    note(page, `request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ""}`),
  );
  page.on(
    "response",
    (r) =>
      void (r.status() >= 400 && note(page, `${r.status()} ${r.request().method()} ${r.url()}`)),
  );
  page.on(
    "framenavigated",
    (f) => void (f === page.mainFrame() && note(page, `navigated to ${f.url()}`)),
  );
}

function watchContext(context: BrowserContext) {
  for (const p of context.pages()) listen(p);
  context.on("page", listen);
}

/** Follows a persistent context's pages (it belongs to no Browser that watchBrowser could follow). */
export function watchPersistentContext(context: BrowserContext): BrowserContext {
  persistent.add(context);
  context.on("close", () => persistent.delete(context));
  watchContext(context);
  return context;
}

/** Follows every context and page the browser opens from now on. */
export function watchBrowser(browser: Browser): Browser {
  browsers.add(browser);
  browser.on("disconnected", () => browsers.delete(browser));
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser["newContext"]>) => {
    const context = await newContext(...args);
    watchContext(context);
    return context;
  };
  for (const c of browser.contexts()) watchContext(c);
  return browser;
}

/** Screenshots of every open page under test-artifacts/failures/, and what each page said. */
export async function recordFailure(dir: string, testName: string): Promise<string> {
  const slug = testName.replace(/[^a-z0-9]+/gi, "-").slice(0, 80);
  const pages = [...[...browsers].flatMap((b) => b.contexts()), ...persistent].flatMap((c) =>
    c.pages(),
  );
  mkdirSync(join(dir, "failures"), { recursive: true });
  const out: string[] = [];
  for (const [i, page] of pages.entries()) {
    const file = join(dir, "failures", `${slug}-${i + 1}.png`);
    const shot = await page.screenshot({ path: file, fullPage: true, timeout: 5_000 }).then(
      () => file,
      (e: Error) => `no screenshot (${e.message.split("\n")[0]})`,
    );
    const toast = await page
      .locator("#toast")
      .textContent({ timeout: 1_000 })
      .catch(() => null);
    out.push(
      `page ${i + 1} ${page.url()}: ${shot}${toast ? `\n  toast: ${toast}` : ""}\n  ${(heard.get(page) ?? ["(not followed)"]).join("\n  ")}`,
    );
  }
  return out.join("\n") || "no page was open";
}
