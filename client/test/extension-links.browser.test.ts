import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { startLoginSite } from "../../test/support/login-site";
import { apiAs } from "./support/api";
import {
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import {
  buildExtension,
  deriveVaultKeys,
  EXTENSION_ID,
  launchWithExtension,
  newProfile,
  openPage,
  openPopup,
  seedEntries,
} from "./support/extension";
import { d1, openSection } from "./support/journey";
import { axeViolations } from "./support/pages";
import { stateFiles } from "./support/storage";

// Secure links made from the extension popup: a free text and an entry's chosen fields, sealed in
// the extension's offscreen vault; a stranger with no account opens them in a fresh browser; the
// owner's web app lists them with their sealed label; the server holds no secret; a locked vault
// asks to be unlocked; a page cannot make the extension create a link.
const PASSPHRASE = "extension links passphrase";
const TEXT = "alarm code 4417-Kq9";
const LINK_PASSPHRASE = "quiet harbour lamp";
const ENTRY = {
  name: "Router admin",
  website: "site.test",
  username: "root-admin",
  password: "pw-Router-Zx81!q",
  totp: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
};
const LABEL = "Router for the plumber";
const base = server().baseUrl;
let site: Awaited<ReturnType<typeof startLoginSite>>;
let user: Awaited<ReturnType<typeof newUser>>;
let context: BrowserContext;
let app: Page;
let strangers: Browser;
let sitePage: Page;

const links = async () =>
  (
    (await (await apiAs(base, user.token)).get("/api/links")).body as {
      links: { id: string; max_views: number; has_passphrase: boolean; label: unknown }[];
    }
  ).links;
const idOf = (url: string) => new URL(url).pathname.split("/")[2]!;

/** A stranger: a fresh browser context of another browser, with no account, cookies or service worker. */
async function stranger(): Promise<Page> {
  const ctx = await strangers.newContext({
    viewport: { width: 390, height: 800 },
    serviceWorkers: "block",
  });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  return page;
}

/** The popup, over the login site's tab (the popup acts on the last web page used), unlocked. */
async function popupUnlocked(): Promise<Page> {
  await sitePage.bringToFront();
  const popup = await openPopup(context);
  if ((await popup.locator("body").getAttribute("data-state")) === "locked") {
    await popup.getByLabel("Master passphrase").fill(PASSPHRASE);
    await popup.getByRole("button", { name: "Unlock" }).click();
  }
  await popup.locator("body[data-state=unlocked]").waitFor();
  return popup;
}

/** Presses Create link in the popup's share view, then copies the new link with its Copy button. */
async function createAndCopy(popup: Page): Promise<string> {
  await popup.getByRole("button", { name: "Create link" }).click();
  await popup.locator("body[data-share=done]").waitFor({ timeout: 30_000 });
  await popup.bringToFront();
  await popup.getByRole("button", { name: "Copy link" }).click();
  const copied = await popup.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(await popup.locator("#share-url").inputValue());
  expect(await popup.locator("#share-status").innerText()).toBe("Link copied");
  return copied;
}

beforeAll(async () => {
  site = await startLoginSite();
  buildExtension(base);
  user = await newUser("ext-links");
  const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await seedEntries(base, user, keys, [
    ENTRY,
    { name: "Other site", website: "other.test", username: "bob", password: "pw-other-never-sent" },
  ]);
  ({ context } = await launchWithExtension(newProfile(), base));
  // For every origin: Chromium refuses a grant named for the extension's origin (not a web origin).
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  app = await context.newPage();
  await app.goto(base);
  await signInThroughPage(app, user.token, PASSPHRASE);
  sitePage = await openPage(context, `http://login.site.test:${new URL(site.url).port}/login`);
  strangers = await launch();
});

afterAll(async () => {
  await strangers?.close();
  await context?.close();
  await site?.close();
});

describe("secure links from the extension popup", () => {
  it("a locked vault shows the unlock step, before sharing and when it locks part-way; the draft survives", async () => {
    const locked = await openPopup(context);
    expect(await locked.locator("body").getAttribute("data-state")).toBe("locked");
    expect(await locked.getByLabel("Master passphrase").isVisible()).toBe(true);
    expect(await locked.getByRole("button", { name: "Share a link" }).isVisible()).toBe(false);
    await locked.close();

    const popup = await popupUnlocked();
    await popup.getByRole("button", { name: "Share a link" }).click();
    // The popup draws the share view after a status round trip (the generator goes). A lock before
    // that draw shows the unlock step at once; the path under test is a lock while the form is shown.
    await popup.locator("#generator").waitFor({ state: "hidden" });
    await popup.getByLabel("Secret text").fill("draft kept across the lock");
    // The vault locks (the auto-lock, the screen lock) while the person writes.
    await popup.evaluate(() => chrome.runtime.sendMessage({ type: "lock" }));
    await popup.getByRole("button", { name: "Create link" }).click();
    await popup.locator("body[data-state=locked]").waitFor();
    expect(await popup.getByLabel("Master passphrase").isVisible()).toBe(true);
    expect(await popup.locator("#share").isHidden()).toBe(true);
    expect(await popup.locator("#share-error").innerText()).toBe("");
    const before = (await links()).length;
    await popup.getByLabel("Master passphrase").fill(PASSPHRASE);
    await popup.getByRole("button", { name: "Unlock" }).click();
    await popup.locator("body[data-state=unlocked]").waitFor();
    await popup.locator("#share").waitFor();
    expect(await popup.getByLabel("Secret text").inputValue()).toBe("draft kept across the lock");
    expect((await links()).length).toBe(before);
    await popup.close();
  });

  it("a free-text link with one view and a passphrase opens once for a stranger with no account", async () => {
    const popup = await popupUnlocked();
    await popup.getByRole("button", { name: "Share a link" }).click();
    await popup.getByLabel("Secret text").fill(TEXT);
    await popup.getByLabel("Maximum views (1–100)").fill("1");
    await popup.getByLabel(/^Passphrase/).fill(LINK_PASSPHRASE);
    await popup.getByLabel("Expires after").selectOption({ label: "1 day" });
    expect(await axeViolations(popup)).toEqual([]);
    await screenshot(popup, "screenshots/extension-link-create.png");
    const url = await createAndCopy(popup);
    expect(url).toMatch(
      new RegExp(`^${base.replace(/[.]/g, "\\.")}/l/[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}$`),
    );
    expect(await axeViolations(popup)).toEqual([]);
    await screenshot(popup, "screenshots/extension-link-result.png");
    expect((await links()).find((l) => l.id === idOf(url))).toMatchObject({
      max_views: 1,
      has_passphrase: true,
    });
    // The page the popup acted on saw nothing of it.
    expect(await sitePage.content()).not.toContain(idOf(url));
    await popup.close();

    const page = await stranger();
    await page.goto(url);
    await page.getByLabel("Passphrase").fill(LINK_PASSPHRASE);
    await page.getByRole("button", { name: "Show the secret" }).click();
    await expect
      .poll(() => page.locator("#link-fields .link-value").allInnerTexts())
      .toEqual([TEXT]);
    const again = await stranger();
    await again.goto(url);
    await expect
      .poll(() => again.locator("#link-status").innerText())
      .toContain("already been opened as many times as the sender allowed");
  });

  it("an entry's chosen fields go out by link from its match in the popup, and nothing else of it", async () => {
    const popup = await popupUnlocked();
    await popup
      .getByRole("button", { name: `Share ${ENTRY.name} ${ENTRY.username} by link` })
      .click();
    const fields = popup.locator("#share-fields");
    await fields.getByLabel("Password").waitFor();
    expect(await fields.locator("label").allInnerTexts()).toEqual([
      "Name",
      "Website",
      "Username",
      "Password",
      "TOTP secret",
    ]);
    // The popup is told which fields exist, never what they hold.
    expect(await popup.content()).not.toContain(ENTRY.password);
    await fields.getByLabel("Website").uncheck();
    expect(await fields.getByLabel("TOTP secret").isChecked()).toBe(false);
    await popup.getByLabel("Maximum views (1–100)").fill("2");
    await popup.getByLabel(/^Label/).fill(LABEL);
    const url = await createAndCopy(popup);
    await popup.close();

    const page = await stranger();
    await page.goto(url);
    await page.getByRole("button", { name: "Show the secret" }).click();
    await expect
      .poll(() => page.locator("#link-fields .name").allInnerTexts())
      .toEqual(["Name", "Username", "Password"]);
    expect(await page.locator("#link-fields .link-value").allInnerTexts()).toEqual([
      ENTRY.name,
      ENTRY.username,
      ENTRY.password,
    ]);
    const shown = await page.locator("body").innerText();
    for (const absent of [ENTRY.totp, ENTRY.website, "pw-other-never-sent"])
      expect(shown).not.toContain(absent);
    await screenshot(page, "screenshots/extension-link-opened.png");

    // The owner's web app lists it under the label, which only the owner's browser opens.
    await openSection(app, "Secure links");
    const card = app.locator(`#links li[data-id="${idOf(url)}"]`);
    await expect.poll(() => card.innerText()).toContain(LABEL);
    expect(await card.innerText()).toContain("Views 1 of 2");
    const [row] = d1<{ encrypted_label: string }>(
      `SELECT encrypted_label FROM secure_links WHERE id = '${idOf(url)}'`,
    );
    expect(JSON.parse(row!.encrypted_label)).toMatchObject({
      iv: expect.any(String),
      ciphertext: expect.any(String),
    });
    expect(row!.encrypted_label).not.toContain("plumber");
  });

  it("any entry of the vault can be found by name in the share view, not only the tab's matches", async () => {
    const popup = await popupUnlocked();
    await popup.getByRole("button", { name: "Share a link" }).click();
    await popup.getByLabel("Entry", { exact: true }).check();
    await popup.getByRole("button", { name: "Create link" }).click();
    expect(await popup.locator("#share-error").innerText()).toBe(
      "Find and choose the entry to send.",
    );
    await popup.getByLabel("Find an entry").fill("other");
    await popup.getByRole("button", { name: /Other site/ }).click();
    const fields = popup.locator("#share-fields");
    await expect
      .poll(() => fields.locator("label").allInnerTexts())
      .toEqual(["Name", "Website", "Username", "Password"]);
    expect(await popup.locator("#share-entry").innerText()).toBe("Other site (bob)");
    expect(await popup.content()).not.toContain("pw-other-never-sent");
    expect(await axeViolations(popup)).toEqual([]);
    await popup.getByRole("button", { name: "Back" }).click();
    await popup.locator("#vault").waitFor();
    await popup.close();
  });

  it("a page cannot make the extension create a link: no runtime messaging, and posted messages do nothing", async () => {
    const before = (await links()).length;
    const attempt = {
      type: "link-create",
      source: { kind: "entry", id: "x", fields: ["password"] },
      options: { expiresInSeconds: 3600, maxViews: 1 },
    };
    const tried = await sitePage.evaluate(
      async ({ id, m }) => {
        window.postMessage(m, "*");
        window.postMessage({ ...m, target: "offscreen" }, "*");
        for (const f of Array.from(window.frames)) f.postMessage(m, "*");
        const runtime = (globalThis as { chrome?: { runtime?: { sendMessage?: unknown } } }).chrome
          ?.runtime;
        if (typeof runtime?.sendMessage !== "function") return "no runtime messaging";
        try {
          await (runtime.sendMessage as (id: string, m: unknown) => Promise<unknown>)(id, m);
          return "sent";
        } catch (e) {
          return `refused: ${String(e)}`;
        }
      },
      { id: EXTENSION_ID, m: attempt },
    );
    // The manifest declares no externally_connectable: pages get no channel to the extension at all.
    expect(tried).toBe("no runtime messaging");
    // The web app's own page is a page too.
    expect(
      await app.evaluate(
        () =>
          typeof (globalThis as { chrome?: { runtime?: { sendMessage?: unknown } } }).chrome
            ?.runtime?.sendMessage,
      ),
    ).toBe("undefined");
    await new Promise((r) => setTimeout(r, 1500));
    expect((await links()).length).toBe(before);
  });

  it("the server's storage (D1 and R2) holds none of the links' secrets", async () => {
    const files = stateFiles();
    expect(files.some((f) => f.includes("r2"))).toBe(true);
    const needles = [TEXT, LINK_PASSPHRASE, ENTRY.password, LABEL].map((s) => Buffer.from(s));
    for (const f of files) {
      const bytes = readFileSync(f);
      for (const n of needles) expect(bytes.includes(n), `${n} in ${f}`).toBe(false);
    }
    expect(await links()).toHaveLength(2);
  });
});
