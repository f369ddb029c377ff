import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveVaultKeys } from "../../core/crypto/crypto";
import { apiAs, openFor } from "./support/api";
import {
  entryNames,
  entryRow,
  launch,
  newUser,
  openEntry,
  screenshot,
  signInThroughPage,
  waitForPending,
  type Browser,
  type Page,
} from "./support/browser";
import { signInWithEntries } from "./support/seed";
import { base, openSection, personContext } from "./support/journey";

// The vault's organisation as a person uses it: a star and a Favourites filter, folders made by
// moving an entry into a new one, renamed and deleted, a kind filter; all of it synced to another
// device, and nothing of it readable on the server (the mark and the folder name are sealed).
const PASSPHRASE = "vault organise passphrase 1";
let browser: Browser;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;
let api: Awaited<ReturnType<typeof apiAs>>;
/** The page's confirm() and prompt() questions; a prompt is answered with the next name here. */
const asked: string[] = [];
const names: string[] = [];

beforeAll(async () => {
  user = await newUser("vaultorg");
  api = await apiAs(base(), user.token);
  browser = await launch();
  const context = await browser.newContext({
    baseURL: base(),
    viewport: { width: 1280, height: 900 },
  });
  page = await context.newPage();
  page.on("dialog", (d) => {
    asked.push(d.message());
    void (d.type() === "prompt" ? d.accept(names.shift() ?? "") : d.accept());
  });
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await signInWithEntries(page, user, PASSPHRASE, [
    {
      name: "Chase",
      website: "chase.com",
      username: "carol@example.test",
      password: "Chase-pw-1",
    },
    { name: "Home wifi", notes: "SSID home, key under the router" },
    { name: "Jane persona", username: "jane@alias.test", category: "identity" },
  ]);
});

afterAll(async () => {
  await browser?.close();
});

/** What the server holds for an entry, opened with the person's keys as another device would. */
/**
 * An entry's secrets as the server holds them, opened here. Checks poll it: the pending count can
 * still read 0 from before a change when a filter redraws the list ahead of the page's own repaint
 * (the change is queued, its push not begun), so "0 pending" alone does not mean "pushed".
 */
async function serverSecrets(name: string) {
  const row = (await api.entries()).get(name);
  return openFor(await deriveVaultKeys(PASSPHRASE, user.sub), user.sub, row);
}
/** Every row the server lists, as text: an organisation word in it would be plaintext. */
const serverText = async () => JSON.stringify([...(await api.entries()).values()]);
const folderOptions = (p: Page) => p.locator("#folder-filter option").allInnerTexts();
const heading = (p: Page) => p.locator("#entries-heading").innerText();
/** Everything this browser's local stores hold, as text: a name in it would be kept in the clear. */
const localText = (p: Page) =>
  p.evaluate(async () => {
    const out: unknown[] = [];
    for (const info of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open(info.name!);
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      for (const store of db.objectStoreNames) {
        out.push(
          await new Promise((resolve) => {
            const req = db.transaction(store).objectStore(store).getAll();
            req.onsuccess = () => resolve(req.result);
          }),
        );
      }
      db.close();
    }
    return JSON.stringify(out);
  });
/** Stars or unstars the open entry from its detail. */
async function toggleStar(p: Page, pressed: "true" | "false") {
  const star = p.locator("#revealed").getByRole("button", { name: "Favourite", exact: true });
  await expect.poll(() => star.isEnabled()).toBe(true);
  await star.click();
  await expect.poll(() => star.getAttribute("aria-pressed")).toBe(pressed);
}

describe("vault organisation at desktop width", () => {
  it("stars an entry: the row shows it, the Favourites filter lists it, the server holds it sealed", async () => {
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Home wifi", "Jane persona"]);
    await openEntry(page, "Chase");
    const star = page.locator("#revealed").getByRole("button", { name: "Favourite", exact: true });
    await expect.poll(() => star.isEnabled()).toBe(true);
    expect(await star.getAttribute("aria-pressed")).toBe("false");
    await star.click();
    await expect.poll(() => star.getAttribute("aria-pressed")).toBe("true");
    await expect
      .poll(() => entryRow(page, "Chase").locator(".fav-mark").innerText())
      .toContain("★");
    expect(await entryRow(page, "Home wifi").locator(".fav-mark").count()).toBe(0);

    await page.getByRole("button", { name: "Favourites", exact: true }).click();
    await expect.poll(() => entryNames(page)).toEqual(["Chase"]);
    expect(await heading(page)).toBe("Entries: favourites (1)");
    await screenshot(page, "screenshots/vault-favourites-1280.png");
    await page.getByRole("button", { name: "Favourites", exact: true }).click();
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Home wifi", "Jane persona"]);

    await expect
      .poll(() => serverSecrets("Chase"))
      .toMatchObject({ favorite: true, password: "Chase-pw-1" });
    await waitForPending(page, 0);
    expect(await serverSecrets("Home wifi")).not.toHaveProperty("favorite");
    expect(await serverText()).not.toMatch(/favou?rite/i);
  });

  it("puts favourites first when the sort says so, and keeps that order after a reload", async () => {
    await openEntry(page, "Jane persona");
    await toggleStar(page, "true");
    const sort = page.getByLabel("Sort by", { exact: true });
    await sort.selectOption({ label: "Favourites first" });
    // Favourites by name, then the rest by name.
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Jane persona", "Home wifi"]);
    await screenshot(page, "screenshots/vault-favourites-first-1280.png");
    await page.reload();
    await expect.poll(() => sort.inputValue()).toBe("favourites");
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Jane persona", "Home wifi"]);
    // As the other tests expect it: one favourite, listed by name.
    await openEntry(page, "Jane persona");
    await toggleStar(page, "false");
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Home wifi", "Jane persona"]);
    await sort.selectOption({ label: "Name" });
    await expect.poll(() => serverSecrets("Jane persona")).not.toHaveProperty("favorite");
    await waitForPending(page, 0);
  });

  it("makes a folder by moving an entry into it, moves another in, and filters by it", async () => {
    await openEntry(page, "Chase");
    names.push("Household");
    await page.getByLabel("In folder", { exact: true }).selectOption({ label: "New folder…" });
    await expect.poll(() => folderOptions(page)).toEqual(["All folders", "No folder", "Household"]);
    expect(asked.at(-1)).toBe("Name of the new folder");
    expect(await page.getByLabel("In folder", { exact: true }).inputValue()).toBe("Household");

    await openEntry(page, "Home wifi");
    await page.getByLabel("In folder", { exact: true }).selectOption({ label: "Household" });
    await page.locator("#folder-filter").selectOption({ label: "Household" });
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Home wifi"]);
    expect(await heading(page)).toBe("Entries: in folder “Household” (2)");
    await page.locator("#folder-filter").selectOption({ label: "No folder" });
    await expect.poll(() => entryNames(page)).toEqual(["Jane persona"]);
    await page.locator("#folder-filter").selectOption({ label: "All folders" });

    await expect
      .poll(async () => [
        (await serverSecrets("Chase")).folder,
        (await serverSecrets("Home wifi")).folder,
      ])
      .toEqual(["Household", "Household"]);
    await waitForPending(page, 0);
    expect(await serverSecrets("Jane persona")).not.toHaveProperty("folder");
    // Ciphertext only: the name is nowhere in what the server lists.
    expect(await serverText()).not.toContain("Household");
  });

  it("filters by kind: logins, secure notes, identities", async () => {
    const kind = page.getByLabel("Kind", { exact: true });
    await kind.selectOption({ label: "Secure notes" });
    await expect.poll(() => entryNames(page)).toEqual(["Home wifi"]);
    expect(await heading(page)).toBe("Entries: secure notes (1)");
    await kind.selectOption({ label: "Identities" });
    await expect.poll(() => entryNames(page)).toEqual(["Jane persona"]);
    await kind.selectOption({ label: "Logins" });
    await expect.poll(() => entryNames(page)).toEqual(["Chase"]);
    await screenshot(page, "screenshots/vault-kind-filter-1280.png");
    await kind.selectOption({ label: "All kinds" });
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Home wifi", "Jane persona"]);
  });

  it("renames a folder: every entry in it follows, sealed", async () => {
    await page.locator("#folder-filter").selectOption({ label: "Household" });
    names.push("Bills");
    await page.getByRole("button", { name: "Rename folder Household" }).click();
    await expect.poll(() => folderOptions(page)).toEqual(["All folders", "No folder", "Bills"]);
    expect(await page.locator("#folder-filter").inputValue()).toBe("Bills");
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Home wifi"]);
    await expect
      .poll(async () => [
        (await serverSecrets("Chase")).folder,
        (await serverSecrets("Home wifi")).folder,
      ])
      .toEqual(["Bills", "Bills"]);
    await waitForPending(page, 0);
    expect(await serverText()).not.toMatch(/Bills|Household/);
  });
});

describe("an empty folder", () => {
  it("is made with New folder, kept on this device sealed, renamed, kept when its last entry leaves, and deleted", async () => {
    const filter = page.locator("#folder-filter");
    names.push("Trips");
    await page.getByRole("button", { name: "New folder", exact: true }).click();
    expect(asked.at(-1)).toBe("Name of the new folder");
    await expect
      .poll(() => folderOptions(page))
      .toEqual(["All folders", "No folder", "Bills", "Trips"]);
    expect(await filter.inputValue()).toBe("Trips");
    await expect.poll(() => heading(page)).toBe("Entries: in folder “Trips” (0)");
    expect(await page.locator("#no-match").innerText()).toContain("The folder Trips is empty.");
    await screenshot(page, "screenshots/vault-empty-folder-1280.png");

    // Still there after a reload, and nowhere in the clear: not on the server, not in the local store.
    await page.reload();
    await expect
      .poll(() => folderOptions(page))
      .toEqual(["All folders", "No folder", "Bills", "Trips"]);
    expect(await localText(page)).not.toContain("Trips");
    expect(await serverText()).not.toContain("Trips");

    await filter.selectOption({ label: "Trips" });
    names.push("Holidays");
    await page.getByRole("button", { name: "Rename folder Trips" }).click();
    await expect
      .poll(() => folderOptions(page))
      .toEqual(["All folders", "No folder", "Bills", "Holidays"]);
    await expect.poll(() => heading(page)).toBe("Entries: in folder “Holidays” (0)");

    // An entry moved in carries the folder (sealed, synced); moved out again, the folder stays, empty.
    await filter.selectOption({ label: "All folders" });
    await openEntry(page, "Jane persona");
    await page.getByLabel("In folder", { exact: true }).selectOption({ label: "Holidays" });
    await filter.selectOption({ label: "Holidays" });
    await expect.poll(() => entryNames(page)).toEqual(["Jane persona"]);
    await expect.poll(async () => (await serverSecrets("Jane persona")).folder).toBe("Holidays");
    await waitForPending(page, 0);
    await page.getByLabel("In folder", { exact: true }).selectOption({ label: "No folder" });
    await expect.poll(() => heading(page)).toBe("Entries: in folder “Holidays” (0)");
    await expect.poll(() => serverSecrets("Jane persona")).not.toHaveProperty("folder");
    await waitForPending(page, 0);
    expect(await folderOptions(page)).toEqual(["All folders", "No folder", "Bills", "Holidays"]);

    await page.locator("#hide-revealed").click();
    await page.getByRole("button", { name: "Delete folder Holidays" }).click();
    expect(asked.at(-1)).toBe("Delete the folder Holidays? It is empty.");
    await expect.poll(() => folderOptions(page)).toEqual(["All folders", "No folder", "Bills"]);
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Home wifi", "Jane persona"]);
    await page.reload();
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Home wifi", "Jane persona"]);
    // The folders entries carry are learnt as the entries are opened, after their rows are drawn.
    await expect.poll(() => folderOptions(page)).toEqual(["All folders", "No folder", "Bills"]);
    expect(await serverText()).not.toMatch(/Trips|Holidays/);
  });
});

describe.each([360, 1280])("another device at %i px", (width) => {
  let other: Page;
  beforeAll(async () => {
    ({ page: other } = await personContext(browser, { width, height: 800 }));
    await signInThroughPage(other, user.token, PASSPHRASE);
  });

  it("sees the favourite and the folder synced, filters by them, without sideways scrolling", async () => {
    await expect.poll(() => entryNames(other)).toEqual(["Chase", "Home wifi", "Jane persona"]);
    await expect.poll(() => entryRow(other, "Chase").locator(".fav-mark").count()).toBe(1);
    await expect.poll(() => folderOptions(other)).toEqual(["All folders", "No folder", "Bills"]);
    // On a phone the filters sit folded under one button, as a person finds them.
    const fold = other.getByRole("button", { name: "Filters", exact: true });
    if (width < 800) {
      await fold.click();
      await expect.poll(() => fold.getAttribute("aria-expanded")).toBe("true");
    } else expect(await fold.isVisible()).toBe(false);
    await other.getByRole("button", { name: "Favourites", exact: true }).click();
    await expect.poll(() => entryNames(other)).toEqual(["Chase"]);
    await other.getByRole("button", { name: "Favourites", exact: true }).click();
    await other.locator("#folder-filter").selectOption({ label: "Bills" });
    await expect.poll(() => entryNames(other)).toEqual(["Chase", "Home wifi"]);
    expect(
      await other.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    ).toBe(true);
    await screenshot(other, `screenshots/vault-folder-filter-${width}.png`);
    await openEntry(other, "Home wifi");
    await expect
      .poll(() => other.getByLabel("In folder", { exact: true }).inputValue())
      .toBe("Bills");
    expect(
      await other.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    ).toBe(true);
    await screenshot(other, `screenshots/vault-organise-detail-${width}.png`);
    await other.context().close();
  });
});

describe("deleting a folder", () => {
  it("keeps its entries, in no folder", async () => {
    await page.locator("#folder-filter").selectOption({ label: "Bills" });
    await page.getByRole("button", { name: "Delete folder Bills" }).click();
    expect(asked.at(-1)).toBe(
      "Delete the folder Bills? Its 2 entries stay in the vault, in no folder.",
    );
    await expect.poll(() => folderOptions(page)).toEqual(["All folders", "No folder"]);
    await expect.poll(() => entryNames(page)).toEqual(["Chase", "Home wifi", "Jane persona"]);
    await expect
      .poll(async () =>
        [await serverSecrets("Chase"), await serverSecrets("Home wifi")].map((s) => "folder" in s),
      )
      .toEqual([false, false]);
    await waitForPending(page, 0);
    // The favourite mark survived the folder's changes.
    expect((await serverSecrets("Chase")).favorite).toBe(true);
  });
});

describe("importing from another manager", () => {
  it("keeps the export's folders and favourites, sealed", async () => {
    const exported = {
      encrypted: false,
      folders: [{ id: "f1", name: "Travel" }],
      items: [
        {
          type: 1,
          name: "Airline",
          folderId: "f1",
          favorite: true,
          login: {
            username: "flyer",
            password: "fly-pw-1",
            uris: [{ uri: "https://air.example" }],
          },
        },
        {
          type: 1,
          name: "Hotel",
          folderId: null,
          favorite: false,
          login: { username: "guest", password: "stay-pw-1", uris: [] },
        },
      ],
    };
    await openSection(page, "Import & export");
    await page.getByLabel("Format", { exact: true }).selectOption("source_mgr_1");
    await page.getByLabel(/Export file from another password manager/).setInputFiles({
      name: "bitwarden.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(exported)),
    });
    await page.getByRole("button", { name: "Preview" }).click();
    await page.getByRole("button", { name: "Import 2 entries" }).click();
    await expect
      .poll(() => page.locator("#import-done").getAttribute("data-imported"), { timeout: 30_000 })
      .toBe("2");
    expect((await serverSecrets("Airline")).folder).toBe("Travel");
    expect((await serverSecrets("Airline")).favorite).toBe(true);
    expect(await serverSecrets("Hotel")).not.toHaveProperty("folder");
    expect(await serverText()).not.toContain("Travel");

    await openSection(page, "Vault");
    await expect.poll(() => folderOptions(page)).toEqual(["All folders", "No folder", "Travel"]);
    await expect.poll(() => entryRow(page, "Airline").locator(".fav-mark").count()).toBe(1);
    await page.locator("#folder-filter").selectOption({ label: "Travel" });
    await expect.poll(() => entryNames(page)).toEqual(["Airline"]);
  });
});
