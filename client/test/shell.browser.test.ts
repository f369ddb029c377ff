import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dashboardReady,
  entryNames,
  fillEntry,
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { base, personContext } from "./support/journey";

// The app shell: a section per capability in one navigation, keyboard use, a phone-sized viewport,
// and sections that open offline from the service worker's cache.
const PASSPHRASE = "shell passphrase 1";
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;

beforeAll(async () => {
  user = await newUser("shell");
  browser = await launch();
  ({ context, page } = await personContext(browser));
});

afterAll(async () => {
  await browser?.close();
});

const nav = (p: Page) => p.getByRole("navigation", { name: "Sections" });

describe("app shell", () => {
  it("sends a signed-out visitor of a section to sign-in, and back to that section after it", async () => {
    await page.goto("/vault");
    await page.waitForURL((u) => u.pathname === "/" && u.searchParams.get("next") === "/vault");
    await signInThroughPage(page, user.token, PASSPHRASE, { through: "provider" });
    expect(new URL(page.url()).pathname).toBe("/vault");
    expect(
      await nav(page)
        .getByRole("link", { name: "Vault", exact: true })
        .getAttribute("aria-current"),
    ).toBe("page");
    expect(await page.getByRole("heading", { level: 1 }).first().innerText()).toBe("Vault");
    await fillEntry(page, {
      name: "Shell entry",
      website: "shell.example",
      username: "sam",
      password: "pw-shell",
    });
    await screenshot(page, "screenshots/shell-vault.png");
  });

  it("lists a link per section, each opening its section without a page load", async () => {
    // Sections open inside the shell; the one page outside it (contacts' keys) loads as a page.
    expect(await nav(page).getByRole("link", { name: "Contacts' keys" }).getAttribute("href")).toBe(
      "/keys",
    );
    const links = await nav(page).locator("a[data-section]").all();
    expect(links.length).toBeGreaterThanOrEqual(14);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    // A section left while its late answers are still coming (the vault's reading pass) must not
    // throw when they land: the person sees nothing of them, and nothing is left half-drawn.
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    for (const link of links) {
      const href = (await link.getAttribute("href"))!;
      await link.click();
      await page.waitForURL((u) => u.pathname === href);
      expect(await link.getAttribute("aria-current")).toBe("page");
      await expect.poll(() => page.locator("#app-main h1").first().isVisible()).toBe(true);
    }
    // Straight out of the vault again, before its first read has finished.
    await nav(page).getByRole("link", { name: "Vault", exact: true }).click();
    await links[links.length - 1].click();
    await expect.poll(() => page.locator("#app-main h1").first().isVisible()).toBe(true);
    await page.waitForTimeout(500);
    expect(errors).toEqual([]);
    // Client-side navigation: the page (and its unlocked keys in memory) stayed.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await page.goBack();
    await page.goto("/vault");
    await dashboardReady(page);
  });

  it("works from the keyboard: a skip link first, then the sections", async () => {
    await page.goto("/vault");
    await dashboardReady(page);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("app-main");
    // Every nav link is reachable by Tab and opens its section with Enter.
    const vault = nav(page).getByRole("link", { name: "Vault", exact: true });
    await vault.focus();
    await page.keyboard.press("Enter");
    await page.waitForURL((u) => u.pathname === "/vault");
    await expect.poll(() => entryNames(page)).toEqual(["Shell entry"]);
  });

  it("is readable on a phone-sized viewport: nothing wider than the screen", async () => {
    const phone = await personContext(browser, { width: 375, height: 740 });
    // Contexts share nothing: the phone signs in on its own.
    await signInThroughPage(phone.page, user.token, PASSPHRASE);
    const widths = await phone.page.evaluate(() => ({
      doc: document.documentElement.scrollWidth,
      view: window.innerWidth,
    }));
    expect(widths.doc).toBeLessThanOrEqual(widths.view);
    // The header stays compact, and the sections are a menu rather than a row that scrolls sideways.
    const header = (await phone.page.locator("header.bar").boundingBox())!;
    expect(header.height).toBeLessThan(740 * 0.15);
    const menu = phone.page.getByRole("button", { name: "Menu" });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await nav(phone.page).getByRole("link", { name: "Devices" }).isVisible()).toBe(false);
    await screenshot(phone.page, "screenshots/shell-phone.png");
    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    await screenshot(phone.page, "screenshots/shell-phone-menu.png");
    await nav(phone.page).getByRole("link", { name: "Devices" }).click();
    await phone.page.waitForURL((u) => u.pathname === "/devices");
    await phone.page.getByRole("heading", { level: 1, name: "Devices" }).waitFor();
    // Choosing closes the menu; Escape closes it too and gives focus back to its button.
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await nav(phone.page).getByRole("link", { name: "Devices" }).isVisible()).toBe(false);
    await menu.click();
    await phone.page.keyboard.press("Escape");
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await phone.page.evaluate(() => document.activeElement?.id)).toBe("menu-toggle");
    await phone.context.close();
  });

  it("opens every section offline from the cache", async () => {
    const paths = await nav(page)
      .locator("a[data-section]")
      .evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
    await context.setOffline(true);
    try {
      for (const path of paths) {
        await page.goto(path);
        await page.locator("body[data-ready=true]").waitFor();
        expect(await page.getByRole("heading", { level: 1 }).first().innerText()).not.toBe(
          "You are offline",
        );
      }
      await page.goto("/vault");
      await dashboardReady(page);
      await expect.poll(() => entryNames(page)).toEqual(["Shell entry"]);
    } finally {
      await context.setOffline(false);
    }
  });

  it("answers an unknown path with the 404 page, and old /dashboard links with the vault", async () => {
    const res = await page.request.get(`${base()}/no-such-section`);
    expect(res.status()).toBe(404);
    await page.goto("/dashboard");
    await dashboardReady(page);
    expect(
      await nav(page)
        .getByRole("link", { name: "Vault", exact: true })
        .getAttribute("aria-current"),
    ).toBe("page");
  });
});
