import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInWithEntries } from "./support/seed";
import {
  entryNames,
  launch,
  newUser,
  openEntry,
  screenshot,
  signInThroughPage,
  type Browser,
  type Page,
} from "./support/browser";
import { personContext } from "./support/journey";

// What a newcomer finds on the vault page at once: a one-letter search narrows the list to the
// entries with a word beginning with that letter (name, site or username); on a phone the list
// starts in the top half of the screen (filters folded under one button, the keyboard help shown
// on demand), and every tab of an open entry is on screen.
const PASSPHRASE = "findable vault passphrase";
const ENTRIES = [
  { name: "Chase", website: "chase.example", username: "pat", password: "pw-chase-1" },
  { name: "Citi Card", website: "citi.example", username: "pat", password: "pw-citi-1" },
  { name: "Bank of America", website: "bofa.example", username: "pat", password: "pw-bofa-1" },
  { name: "Samsung", website: "samsung.example", username: "carol", password: "pw-sam-1" },
  { name: "Amazon", website: "amazon.example", username: "pat", password: "pw-amazon-1" },
];
const ALL = ["Amazon", "Bank of America", "Chase", "Citi Card", "Samsung"];
const TABS = ["Details", "Attachments", "Password reset", "Share session", "Share by link"];
let browser: Browser;
let user: Awaited<ReturnType<typeof newUser>>;
let desktop: Page;

beforeAll(async () => {
  user = await newUser("findable");
  browser = await launch();
  ({ page: desktop } = await personContext(browser));
  await signInWithEntries(desktop, user, PASSPHRASE, ENTRIES);
});

afterAll(async () => {
  await browser?.close();
});

const heading = (p: Page) => p.locator("#entries-heading").innerText();

describe("search by one letter", () => {
  it("lists only the entries with a word (name, site or username) beginning with the letter", async () => {
    await expect.poll(() => entryNames(desktop)).toEqual(ALL);
    const search = desktop.getByRole("searchbox", { name: "Search" });
    await search.fill("c");
    // Chase and Citi by name, Samsung by its username (carol), read by the page's pass.
    await expect.poll(() => entryNames(desktop)).toEqual(["Chase", "Citi Card", "Samsung"]);
    expect(await heading(desktop)).toBe("Entries matching “c” (3)");
    await search.fill("A");
    await expect.poll(() => entryNames(desktop)).toEqual(["Amazon", "Bank of America"]);
    await search.fill("b a");
    await expect.poll(() => entryNames(desktop)).toEqual(["Bank of America"]);
    await search.fill("z");
    await expect.poll(() => entryNames(desktop)).toEqual([]);
    expect(await desktop.locator("#no-match").innerText()).toContain("No entry matches “z”");
    await search.fill("");
    await expect.poll(() => entryNames(desktop)).toEqual(ALL);
  });
});

describe("help and filters at desktop width", () => {
  it("shows the filters at once and the keyboard help on demand (? key or button)", async () => {
    expect(await desktop.getByLabel("Sort by", { exact: true }).isVisible()).toBe(true);
    expect(await desktop.getByRole("button", { name: "Filters", exact: true }).isVisible()).toBe(
      false,
    );
    const help = desktop.locator("#search-help");
    const helpButton = desktop.getByRole("button", { name: "Keyboard help" });
    expect(await help.isVisible()).toBe(false);
    await desktop.locator("#vault-title").click();
    await desktop.keyboard.press("?");
    expect(await help.isVisible()).toBe(true);
    expect(await help.innerText()).toContain("c copies the password");
    expect(await helpButton.getAttribute("aria-expanded")).toBe("true");
    await helpButton.click();
    expect(await help.isVisible()).toBe(false);
    // Typed in the search, ? is a character of the query, not the help.
    await desktop.getByRole("searchbox", { name: "Search" }).press("?");
    expect(await help.isVisible()).toBe(false);
    await desktop.getByRole("searchbox", { name: "Search" }).fill("");
  });

  it("shows every tab of an open entry inside its detail", async () => {
    await openEntry(desktop, "Chase");
    expect(await desktop.getByRole("tab").allInnerTexts()).toEqual(TABS);
    const pane = (await desktop.locator("#revealed").boundingBox())!;
    for (const name of TABS) {
      const box = (await desktop.getByRole("tab", { name }).boundingBox())!;
      expect([name, box.x >= pane.x && box.x + box.width <= pane.x + pane.width]).toEqual([
        name,
        true,
      ]);
    }
  });
});

describe("at a 390 px phone width", () => {
  const W = 390;
  const H = 844;
  let phone: Page;
  beforeAll(async () => {
    ({ page: phone } = await personContext(browser, { width: W, height: H }));
    await signInThroughPage(phone, user.token, PASSPHRASE);
    await phone
      .locator("#entries li")
      .nth(ALL.length - 1)
      .waitFor();
  });

  it("starts the list in the top half of the screen: filters folded, help on demand", async () => {
    const first = (await phone.locator("#entries li").first().boundingBox())!;
    expect(first.y + first.height).toBeLessThan(H / 2);
    expect(await phone.locator("#search-help").isVisible()).toBe(false);
    expect(await phone.getByLabel("Sort by", { exact: true }).isVisible()).toBe(false);
    await screenshot(phone, "screenshots/vault-findable-list-390.png");
    const filters = phone.getByRole("button", { name: "Filters", exact: true });
    expect(await filters.getAttribute("aria-expanded")).toBe("false");
    await filters.click();
    expect(await filters.getAttribute("aria-expanded")).toBe("true");
    for (const label of ["Sort by", "Tag", "Kind", "Folder"])
      expect([
        label,
        await phone.locator("#vault-filters").getByLabel(label, { exact: true }).isVisible(),
      ]).toEqual([label, true]);
    await phone.getByLabel("Sort by", { exact: true }).selectOption({ label: "Last changed" });
    await screenshot(phone, "screenshots/vault-findable-filters-390.png");
    await phone.getByLabel("Sort by", { exact: true }).selectOption({ label: "Name" });
    await filters.click();
    expect(await phone.getByLabel("Sort by", { exact: true }).isVisible()).toBe(false);
    await phone.getByRole("button", { name: "Keyboard help" }).click();
    expect(await phone.locator("#search-help").isVisible()).toBe(true);
    await phone.getByRole("button", { name: "Keyboard help" }).click();
    expect(await phone.locator("#search-help").isVisible()).toBe(false);
    expect(
      await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    ).toBe(true);
  });

  it("shows each of the open entry's five tabs within the screen, and each opens", async () => {
    await openEntry(phone, "Chase");
    expect(await phone.getByRole("tab").allInnerTexts()).toEqual(TABS);
    for (const name of TABS) {
      const box = (await phone.getByRole("tab", { name }).boundingBox())!;
      expect([name, box.x >= 0 && box.x + box.width <= W]).toEqual([name, true]);
    }
    await screenshot(phone, "screenshots/vault-findable-tabs-390.png");
    await phone.getByRole("tab", { name: "Share by link" }).click();
    expect(
      await phone.getByRole("tab", { name: "Share by link" }).getAttribute("aria-selected"),
    ).toBe("true");
    expect(
      await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    ).toBe(true);
  });
});
