import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveVaultKeys } from "../../core/crypto/crypto";
import { apiAs, openFor } from "./support/api";
import {
  entryNames,
  entryRow,
  launch,
  newUser,
  openEntry,
  openNewEntry,
  revealedField,
  screenshot,
  signInThroughPage,
  waitForPending,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { base, personContext } from "./support/journey";

// The vault page as a person lives in it: the list beside the open entry (its own view on a phone),
// fields copied one by one, secrets masked until shown, the entry's tools as tabs; new and edit in
// a dialog with the generator (the registry's rules for the site) and the strength meter; and the
// keyboard path from a search to the password on the clipboard.
const PASSPHRASE = "vault page passphrase 1";
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;
let api: Awaited<ReturnType<typeof apiAs>>;
/** Every URL the page asked for: none may be derived from entry data (no favicons). */
const requested: string[] = [];
/** The page's confirm() questions, and how the next is answered. */
const asked: string[] = [];
let answer: "yes" | "no" = "yes";

beforeAll(async () => {
  user = await newUser("vaultpage");
  api = await apiAs(base(), user.token);
  browser = await launch();
  // Not personContext: its page accepts every dialog, and this journey answers some with No.
  context = await browser.newContext({ baseURL: base(), viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  // Playwright's clock, running at its natural pace, so a test can pass the 30-second sync at once.
  await context.clock.install();
  page = await context.newPage();
  page.on("dialog", (d) => {
    asked.push(d.message());
    void (answer === "no" ? d.dismiss() : d.accept());
  });
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await signInThroughPage(page, user.token, PASSPHRASE);
  // From the vault on (sign-in itself visits the OpenID provider).
  page.on("request", (r) => requested.push(r.url()));
});

afterAll(async () => {
  await browser?.close();
});

const clipboard = (p: Page) => p.evaluate(() => navigator.clipboard.readText());
const dialog = (p: Page) => p.locator("#entry-dialog");
/** What the server holds for an entry, opened with the person's keys as another device would. */
async function serverSecrets(name: string) {
  const row = (await api.entries()).get(name);
  return openFor(await deriveVaultKeys(PASSPHRASE, user.sub), user.sub, row);
}

describe("vault page at desktop width", () => {
  it("an empty vault says what to do next: import from another manager, or add an entry", async () => {
    const empty = page.locator("#empty");
    await empty.waitFor();
    expect(await empty.innerText()).toContain("Your vault is empty.");
    expect(
      await empty.getByRole("link", { name: "Import your passwords" }).getAttribute("href"),
    ).toBe("/import-export");
    expect(await empty.getByRole("button", { name: "Add your first entry" }).isVisible()).toBe(
      true,
    );
    await screenshot(page, "screenshots/vault-empty-1280.png");
  });

  it("generates a password within the site's registry rules, rates it with a reason, and saves it", async () => {
    await openNewEntry(page);
    await page.getByLabel("Name", { exact: true }).fill("Chase");
    await page.getByLabel("Website", { exact: true }).fill("secure.chase.com");
    await page.getByLabel("Username", { exact: true }).fill("carol@example.test");
    // A weak password typed: the meter says so, and why.
    await page.getByLabel("Password", { exact: true }).fill("password1");
    await expect
      .poll(() => page.locator("#strength-text").innerText())
      .toMatch(/^(Very weak|Weak): \S.+/);
    expect(await page.locator("#strength-meter").getAttribute("value")).toMatch(/^[01]$/);

    await page.getByText("Password generator").click();
    await expect
      .poll(() => page.locator("#gen-rules").innerText())
      .toBe(
        "Chase asks for 8–32 characters, upper case, lower case, digits, symbols (only !#$%+/=@~).",
      );
    await page.getByRole("button", { name: "Generate a password" }).click();
    await expect
      .poll(() => page.getByLabel("Password", { exact: true }).inputValue())
      .not.toBe("password1");
    const generated = await page.getByLabel("Password", { exact: true }).inputValue();
    expect(generated).toHaveLength(20);
    expect(generated).toMatch(/^[A-Za-z0-9!#$%+/=@~]+$/);
    expect(generated).toMatch(/[!#$%+/=@~]/);
    expect(generated).toMatch(/[A-Z]/);
    expect(generated).toMatch(/\d/);
    // Shown, so the person sees what will be saved; rated strong with the reason.
    expect(await page.getByLabel("Password", { exact: true }).getAttribute("type")).toBe("text");
    await expect
      .poll(() => page.locator("#strength-text").innerText())
      .toMatch(/^(Strong|Very strong): /);
    await screenshot(page, "screenshots/vault-new-generator-1280.png");

    await page.getByRole("button", { name: "Save" }).click();
    await dialog(page).waitFor({ state: "hidden" });
    await waitForPending(page, 0);
    expect(await serverSecrets("Chase")).toMatchObject({
      username: "carol@example.test",
      password: generated,
    });
  });

  it("follows a service's length limit and makes passphrases of words", async () => {
    await openNewEntry(page);
    await page.getByLabel("Name", { exact: true }).fill("Samsung");
    await page.getByLabel("Website", { exact: true }).fill("https://account.samsung.com/login");
    await page.getByLabel("Username", { exact: true }).fill("sam");
    await page.getByText("Password generator").click();
    await page.getByRole("button", { name: "Generate a password" }).click();
    await expect
      .poll(() => page.getByLabel("Password", { exact: true }).inputValue())
      .toHaveLength(15);
    expect(await page.locator("#gen-rules").innerText()).toContain(
      "Changed to follow them: length 15.",
    );
    const chars = await page.getByLabel("Password", { exact: true }).inputValue();
    // Words, for a site without known rules (the defaults ask for every class, up to 64).
    await page.getByLabel("Website", { exact: true }).fill("samsung.example");
    await page.getByLabel("Words (a passphrase)").check();
    await page.getByLabel("Number of words").fill("4");
    await page.getByRole("button", { name: "Generate a password" }).click();
    await expect
      .poll(() => page.getByLabel("Password", { exact: true }).inputValue())
      .not.toBe(chars);
    // Four words joined by "-", one capitalised, then a digit and a symbol for the rules.
    expect(await page.getByLabel("Password", { exact: true }).inputValue()).toMatch(
      /^[a-zA-Z]+(-[a-zA-Z]+){3}[2-9][!@#$%^&*\-_+=?]$/,
    );
    expect(await page.getByLabel("Password", { exact: true }).inputValue()).toMatch(/[A-Z]/);
    await page.getByRole("button", { name: "Save" }).click();
    await dialog(page).waitFor({ state: "hidden" });
  });

  it("does not lose typed changes to a stray click or Escape", async () => {
    await openNewEntry(page);
    await page.getByLabel("Name", { exact: true }).fill("Half typed");
    // A click outside the dialog does nothing.
    await page.mouse.click(5, 5);
    expect(await dialog(page).isVisible()).toBe(true);
    // Escape asks; declining keeps what was typed.
    answer = "no";
    asked.length = 0;
    await page.keyboard.press("Escape");
    await expect.poll(() => asked).toEqual(["Discard the changes to Half typed?"]);
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Half typed");
    expect(await dialog(page).isVisible()).toBe(true);
    // Cancel, and yes: closed, nothing saved.
    answer = "yes";
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await dialog(page).waitFor({ state: "hidden" });
    expect(asked).toHaveLength(2);
    expect(await entryNames(page)).not.toContain("Half typed");
    // An untouched dialog closes on Escape without asking.
    await openNewEntry(page);
    await page.keyboard.press("Escape");
    await dialog(page).waitFor({ state: "hidden" });
    expect(asked).toHaveLength(2);
  });

  it("lists rows with a letter avatar, name, username and site, and opens the detail beside the list", async () => {
    const row = entryRow(page, "Chase");
    await expect.poll(() => row.locator(".user").innerText()).toBe("carol@example.test");
    expect(await row.locator(".avatar").innerText()).toBe("C");
    expect(await row.locator(".site").innerText()).toBe("secure.chase.com");
    // One control per row, no favicon image anywhere in the list.
    expect(await row.getByRole("button").count()).toBe(1);
    expect(await page.locator("#entries img").count()).toBe(0);

    await openEntry(page, "Chase");
    const password = page.locator('#revealed-fields dd[data-field="password"]');
    expect(await password.innerText()).toBe("••••••••••");
    expect(await page.content()).not.toContain((await serverSecrets("Chase")).password);
    // List and detail side by side.
    const list = await page.locator("#list-pane").boundingBox();
    const detail = await page.locator("#revealed").boundingBox();
    expect(detail!.x).toBeGreaterThan(list!.x + list!.width - 1);
    await page.getByRole("button", { name: "Copy username" }).click();
    await expect.poll(() => clipboard(page)).toBe("carol@example.test");
    await page.getByRole("button", { name: "Copy password" }).click();
    const secret = (await serverSecrets("Chase")).password;
    await expect.poll(() => clipboard(page)).toBe(secret);
    await page.getByRole("button", { name: "Show password" }).click();
    expect(await password.innerText()).toBe(secret);
    await screenshot(page, "screenshots/vault-detail-1280.png");

    // Leaving the entry masks it again.
    await openEntry(page, "Samsung");
    await openEntry(page, "Chase");
    expect(await page.locator('#revealed-fields dd[data-field="password"]').innerText()).toBe(
      "••••••••••",
    );
    // Nothing was fetched from a host named in an entry.
    expect(requested.filter((u) => new URL(u).origin !== new URL(base()).origin)).toEqual([]);
  });

  it("shows the entry's tools as tabs, and keeps a tool open past 30 seconds of use", async () => {
    await openEntry(page, "Chase");
    expect(await page.getByRole("tab").allInnerTexts()).toEqual([
      "Details",
      "Attachments",
      "Password reset",
      "Share session",
      "Share by link",
    ]);
    expect(await page.getByRole("tab", { name: "Details" }).getAttribute("aria-selected")).toBe(
      "true",
    );
    // The live code's place is in the details.
    await page.locator('#panel-details [data-tool="totp"]').waitFor();
    await page.getByRole("tab", { name: "Attachments" }).click();
    const attachments = page.locator('#entry-tools section[data-tool="attachments"]');
    await attachments.getByLabel(/file/i).first().waitFor();
    expect(await page.locator("#panel-details").isHidden()).toBe(true);
    await screenshot(page, "screenshots/vault-detail-tabs-1280.png");
    // 31 seconds on: the periodic sync (every 30 s, a push only while live sync is connected) has
    // run and finished, as the network line said, and the tool stays open.
    await page.evaluate(() => {
      const net = document.getElementById("net-state")!;
      const seen: string[] = ((window as unknown as { netStates: string[] }).netStates = []);
      new MutationObserver(() => seen.push(net.textContent ?? "")).observe(net, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await page.clock.fastForward("00:31");
    await expect
      .poll(() =>
        page.evaluate(() => (window as unknown as { netStates: string[] }).netStates.join(" | ")),
      )
      .toMatch(/syncing.* \| Online$/);
    expect(await attachments.isVisible()).toBe(true);
    expect(await page.locator("#revealed").isVisible()).toBe(true);
  });

  it("edits in the dialog: the server holds the change and the detail shows it", async () => {
    await openEntry(page, "Samsung");
    await page.getByRole("button", { name: "Edit Samsung" }).click();
    await expect.poll(() => page.getByLabel("Username", { exact: true }).inputValue()).toBe("sam");
    expect(await page.locator("#form-heading").innerText()).toBe("Edit Samsung");
    await page.getByLabel("Password", { exact: true }).fill("Edited-pw-42");
    await page.getByRole("button", { name: "Save" }).click();
    await dialog(page).waitFor({ state: "hidden" });
    await expect.poll(() => revealedField(page, "password")).toBe("Edited-pw-42");
    await waitForPending(page, 0);
    expect((await serverSecrets("Samsung")).password).toBe("Edited-pw-42");
  });

  it("keyboard: / to search, Enter to open the first match, c to copy its password", async () => {
    await page.locator("#vault-title").click();
    // Step 1: type the search (after "/" from anywhere on the page).
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("search");
    await page.keyboard.type("sam");
    await expect.poll(() => entryNames(page)).toEqual(["Samsung"]);
    // Step 2: Enter opens it, focus in the entry.
    await page.keyboard.press("Enter");
    await page.locator("#revealed[data-ready=true]").waitFor();
    expect(await page.locator("#revealed-heading").innerText()).toBe("Samsung");
    // Step 3: one key copies the password; u the username.
    await page.keyboard.press("c");
    await expect.poll(() => clipboard(page)).toBe("Edited-pw-42");
    await page.keyboard.press("u");
    await expect.poll(() => clipboard(page)).toBe("sam");
    // Escape goes back to the list, on the row just left; arrows move between rows.
    await page.keyboard.press("Escape");
    expect(await page.locator("#revealed").isHidden()).toBe(true);
    await page.locator("#search").fill("");
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Samsung"]);
    await page.locator("#search").focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#revealed-heading").innerText()).toBe("Samsung");
    expect(await page.locator("#search-help").innerText()).toContain(
      "c copies the password, u the username",
    );
  });

  it("from unlocked to the password on the clipboard: three steps, type, Enter, c (the search has the focus)", async () => {
    await page.evaluate(() => navigator.clipboard.writeText(""));
    await page.getByRole("button", { name: "Lock", exact: true }).click();
    await page.locator("#lock-screen").waitFor({ state: "visible" });
    await page.getByLabel("Master passphrase", { exact: true }).fill(PASSPHRASE);
    await page.getByRole("button", { name: "Unlock" }).click();
    await page.locator("#entries li").first().waitFor();
    // Nothing clicked or focused by hand since the unlock: the person's keys go to the search.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("search");
    const steps: string[] = [];
    await page.keyboard.type("sam");
    steps.push("type");
    await page.keyboard.press("Enter");
    steps.push("Enter");
    await page.locator("#revealed[data-ready=true]").waitFor();
    expect(await page.locator("#revealed-heading").innerText()).toBe("Samsung");
    await page.keyboard.press("c");
    steps.push("c");
    await expect.poll(() => clipboard(page)).toBe("Edited-pw-42");
    expect(steps).toEqual(["type", "Enter", "c"]);
    await page.locator("#search").fill("");
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Samsung"]);
  });
});

describe("vault page: sort and tags", () => {
  it("sorts by last changed and last used, and filters by tag", async () => {
    await page.locator("#hide-revealed").click();
    // Samsung was edited after Chase was made; the keyboard journey opened Samsung last.
    await page.getByLabel("Sort by").selectOption("changed");
    await expect.poll(() => entryNames(page)).toEqual(["Samsung", "Chase"]);
    await page.getByLabel("Sort by").selectOption("used");
    await expect.poll(() => entryNames(page)).toEqual(["Samsung", "Chase"]);
    await openEntry(page, "Chase");
    await page.getByLabel("Sort by").selectOption("name");
    await page.getByLabel("Sort by").selectOption("used");
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Samsung"]);
    await page.getByLabel("Sort by").selectOption("name");

    await page.getByRole("button", { name: "Edit Chase" }).click();
    await page.getByLabel("Tags (comma-separated)").fill("bank, work");
    await page.getByRole("button", { name: "Save" }).click();
    await dialog(page).waitFor({ state: "hidden" });
    await expect
      .poll(() => page.getByLabel("Tag", { exact: true }).locator("option").allInnerTexts())
      .toEqual(["All tags", "bank", "work"]);
    await page.getByLabel("Tag", { exact: true }).selectOption("bank");
    await expect.poll(() => entryNames(page)).toEqual(["Chase"]);
    expect(await page.locator("#entries-heading").innerText()).toBe("Entries tagged “bank” (1)");
    await screenshot(page, "screenshots/vault-tag-filter-1280.png");
    await page.getByLabel("Tag", { exact: true }).selectOption("");
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Samsung"]);
    await waitForPending(page, 0);
    expect((await api.entries()).get("Chase").tags).toEqual(["bank", "work"]);
  });
});

describe.each([390, 360])("vault page at a %i px phone width", (width) => {
  let phone: Page;
  beforeAll(async () => {
    ({ page: phone } = await personContext(browser, { width, height: 800 }));
    await signInThroughPage(phone, user.token, PASSPHRASE);
    await phone.locator("#entries li").nth(1).waitFor();
  });

  const noSideways = () =>
    phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  it("shows the list, then the entry as its own view with a way back, without sideways scrolling", async () => {
    await expect.poll(() => entryNames(phone)).toEqual(["Chase", "Samsung"]);
    expect(await noSideways()).toBe(true);
    await screenshot(phone, `screenshots/vault-list-${width}.png`);
    await openEntry(phone, "Chase");
    expect(await phone.locator("#list-pane").isHidden()).toBe(true);
    expect(await phone.getByRole("button", { name: "Back to the list" }).isVisible()).toBe(true);
    expect(await revealedField(phone, "username")).toBe("carol@example.test");
    expect(await noSideways()).toBe(true);
    await screenshot(phone, `screenshots/vault-detail-${width}.png`);
    await phone.getByRole("button", { name: "Back to the list" }).click();
    expect(await phone.locator("#list-pane").isVisible()).toBe(true);
    expect(await phone.locator("#revealed").isHidden()).toBe(true);
  });

  it("opens the entry dialog within the screen", async () => {
    await openNewEntry(phone);
    const box = await dialog(phone).boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    await screenshot(phone, `screenshots/vault-dialog-${width}.png`);
    await phone.getByRole("button", { name: "Cancel", exact: true }).click();
    await dialog(phone).waitFor({ state: "hidden" });
  });
});
