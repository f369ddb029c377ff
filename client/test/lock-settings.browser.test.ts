import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedIntoPage } from "./support/seed";
import { server } from "./support/server";
import {
  dashboardReady,
  entryNames,
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { openSection } from "./support/journey";

// Settings' auto-lock, as a Bitwarden user looks for it: lock after N minutes without activity
// (taken by the open page at once, and by the next page load), and lock when the browser closes.
// On Playwright's fake clock; the choice is this device's, kept in its store.
const PASSPHRASE = "auto-lock settings passphrase";
const base = server().baseUrl;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;

/** The auto-lock setting the page's store holds, or null. */
const stored = (p: Page) =>
  p.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open("app-sync", 1);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const rows = await new Promise<{ key: string; value: unknown }[]>((resolve, reject) => {
      const r = db.transaction("metadata").objectStore("metadata").getAll();
      r.onsuccess = () => resolve(r.result as { key: string; value: unknown }[]);
      r.onerror = () => reject(r.error);
    });
    db.close();
    return rows.find((r) => r.key.startsWith("autolock:"))?.value ?? null;
  });

const lockScreen = (p: Page) => p.locator("#lock-screen");

async function unlock(p: Page) {
  await p.getByLabel("Master passphrase", { exact: true }).fill(PASSPHRASE);
  await p.getByRole("button", { name: "Unlock" }).click();
  await dashboardReady(p);
}

beforeAll(async () => {
  user = await newUser("autolock");
  browser = await launch();
  context = await browser.newContext({ baseURL: base });
  await context.clock.install();
  page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await signInThroughPage(page, user.token, PASSPHRASE);
  await seedIntoPage(page, user, PASSPHRASE, [
    { name: "Alpha", website: "alpha.example", username: "alice", password: "pw-alpha" },
  ]);
});

afterAll(async () => {
  await browser?.close();
});

describe("auto-lock in Settings", () => {
  it("offers the idle time (15 minutes until changed) and locks after the time chosen", async () => {
    await openSection(page, "Account");
    const idle = page.getByLabel("Lock after this long without activity");
    expect(await idle.locator("option").allInnerTexts()).toEqual([
      "1 minute",
      "5 minutes",
      "15 minutes",
      "30 minutes",
      "1 hour",
      "4 hours",
    ]);
    expect(await idle.inputValue()).toBe("15");
    expect(await page.getByLabel("Also lock when the browser closes").isChecked()).toBe(false);
    expect(await stored(page)).toBeNull();
    await idle.selectOption({ label: "1 minute" });
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Saved" }).innerText())
      .toBe("Saved: this device locks after 1 minute without activity.");
    expect(await stored(page)).toEqual({ idleMinutes: 1, onBrowserClose: false });
    await screenshot(page, "screenshots/settings-autolock-1280.png");
    // The open page takes the new limit at once: a minute and a bit later, locked.
    await page.clock.fastForward("00:50");
    expect(await lockScreen(page).isHidden()).toBe(true);
    await page.clock.fastForward("00:15");
    await lockScreen(page).waitFor({ state: "visible" });
    expect(await page.locator("#app-main").isHidden()).toBe(true);
    await unlock(page);
    await openSection(page, "Account");
    expect(await page.getByLabel("Lock after this long without activity").inputValue()).toBe("1");
  });

  it("locks at the next load when the browser was closed, once asked to", async () => {
    await page
      .getByLabel("Lock after this long without activity")
      .selectOption({ label: "1 hour" });
    await page.getByLabel("Also lock when the browser closes").check();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Saved" }).innerText())
      .toBe("Saved: this device locks after 1 hour without activity and when the browser closes.");
    expect(await stored(page)).toEqual({ idleMinutes: 60, onBrowserClose: true });
    // A reload in the same browser session stays open.
    await page.goto("/vault");
    await dashboardReady(page);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha"]);
    expect(await lockScreen(page).isHidden()).toBe(true);
    // A browser closed and opened again: the cookies that live as long as the browser are gone.
    const kept = (await context.cookies()).filter((c) => c.expires !== -1);
    await context.clearCookies();
    await context.addCookies(kept);
    await page.goto("/vault");
    await lockScreen(page).waitFor({ state: "visible" });
    expect(await page.locator("#entries li").count()).toBe(0);
    await unlock(page);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha"]);
    // Unlocked again, a reload stays open.
    await page.goto("/vault");
    await dashboardReady(page);
    expect(await lockScreen(page).isHidden()).toBe(true);
  });
});
