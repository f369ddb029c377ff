import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedIntoPage } from "./support/seed";
import { server } from "./support/server";
import {
  dashboardReady,
  entryNames,
  launch,
  localState,
  newUser,
  openEntry,
  revealedField,
  signInThroughPage,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";

// Lock, unlock (offline) and the 15-minute idle lock, on Playwright's fake clock.
const PASSPHRASE = "lock screen passphrase";
const base = server().baseUrl;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;

/** The metadata keys the page's store holds (keys:<user>, keycheck:<user>, session, …). */
const metaKeys = (p: Page) =>
  p.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open("app-sync", 1);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const keys = await new Promise<string[]>((resolve, reject) => {
      const r = db.transaction("metadata").objectStore("metadata").getAllKeys();
      r.onsuccess = () => resolve((r.result as string[]).map((k) => k.split(":")[0]!).sort());
      r.onerror = () => reject(r.error);
    });
    db.close();
    return keys;
  });

const lockScreen = (p: Page) => p.locator("#lock-screen");

async function unlock(p: Page, passphrase: string) {
  await p.getByLabel("Master passphrase", { exact: true }).fill(passphrase);
  await p.getByRole("button", { name: "Unlock" }).click();
}

beforeAll(async () => {
  user = await newUser("lock");
  browser = await launch();
  context = await browser.newContext({ baseURL: base });
  await context.clock.install();
  page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  // The sign-in finds an empty vault (the metadata the first case lists are of that sign-in).
  await signInThroughPage(page, user.token, PASSPHRASE);
  await seedIntoPage(page, user, PASSPHRASE, [
    {
      name: "Alpha",
      website: "alpha.example",
      username: "alice",
      password: "pw-alpha",
    },
    {
      name: "Bravo",
      website: "bravo.example",
      username: "bob",
      password: "pw-bravo",
    },
  ]);
});

afterAll(async () => {
  await browser?.close();
});

describe("locking the vault", () => {
  it("Lock drops the keys from memory and the store, hides the list, and locks the other tabs", async () => {
    const other = await context.newPage();
    // Closed whatever happens: a second tab left open would lock the vault on its own idle timer
    // in the tests that follow.
    try {
      await other.goto("/dashboard");
      await dashboardReady(other);
      expect(await metaKeys(page)).toContain("keys");

      await page.getByRole("button", { name: "Lock", exact: true }).click();
      await lockScreen(page).waitFor({ state: "visible" });
      await lockScreen(other).waitFor({ state: "visible" });
      for (const p of [page, other]) {
        expect(await p.locator("#vault-view").isHidden()).toBe(true);
        expect(await p.locator("#entries li").count()).toBe(0);
        expect(await p.getByRole("button", { name: "Lock", exact: true }).isHidden()).toBe(true);
      }
      // The last listing stays (ids, names, sites: what the entries hold in plaintext anyway), so
      // the next unlock draws the list at once; so do the sync cursor and its D1 bookmark (docs/decisions/scale.md, "Scale: shards, a directory, many databases"),
      // and the account's sharing key as the server holds it (made at unlock): its private half
      // wrapped by the vault key, so without the keys it is ciphertext like the entries.
      expect(await metaKeys(page)).toEqual([
        "activity",
        "bookmark",
        "cursor",
        "keycheck",
        "lastSync",
        "listing",
        "session",
        "sharingKey",
      ]);
      // The encrypted entries stay; without the keys they are envelopes only.
      expect((await localState(page)).names).toEqual(["Alpha", "Bravo"]);
    } finally {
      await other.close();
    }
  });

  it("unlocks offline with the right passphrase only", async () => {
    await context.setOffline(true);
    await page.reload();
    await lockScreen(page).waitFor({ state: "visible" });

    await unlock(page, "not the passphrase");
    await expect
      .poll(() => page.locator("#unlock-error").innerText())
      .toBe("This passphrase does not open the vault");
    expect(await page.locator("#vault-view").isHidden()).toBe(true);
    expect(await metaKeys(page)).not.toContain("keys");

    await unlock(page, PASSPHRASE);
    await dashboardReady(page);
    expect(await lockScreen(page).isHidden()).toBe(true);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha", "Bravo"]);
    await openEntry(page, "Bravo");
    await expect.poll(() => revealedField(page, "password")).toBe("pw-bravo");
    expect(await metaKeys(page)).toContain("keys");
    // The keys are back in the store: a reload opens the vault without the passphrase.
    await page.reload();
    await dashboardReady(page);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha", "Bravo"]);
    await context.setOffline(false);
  });

  it("locks by itself after 15 minutes without activity", async () => {
    await page.clock.fastForward("14:00");
    await page.mouse.click(5, 5);
    await page.clock.fastForward("14:00");
    await page.waitForTimeout(1000);
    expect(await lockScreen(page).isHidden()).toBe(true);
    expect(await entryNames(page)).toEqual(["Alpha", "Bravo"]);

    await page.clock.fastForward("01:01");
    await lockScreen(page).waitFor({ state: "visible" });
    expect(await page.locator("#entries li").count()).toBe(0);
    expect(await metaKeys(page)).not.toContain("keys");
    await unlock(page, PASSPHRASE);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha", "Bravo"]);
  });

  it("locks at the next page load when the last activity, with no dashboard open, is 15 minutes old", async () => {
    await page.goto("/offline");
    const moved = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open("app-sync", 1);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const store = () => db.transaction("metadata", "readwrite").objectStore("metadata");
      const rows = await new Promise<{ key: string; value: unknown }[]>((resolve) => {
        const r = store().getAll();
        r.onsuccess = () => resolve(r.result as { key: string; value: unknown }[]);
      });
      const activity = rows.find((r) => r.key.startsWith("activity:"))!;
      await new Promise((resolve) => {
        const r = store().put({ key: activity.key, value: Date.now() - 15 * 60_000 - 1000 });
        r.onsuccess = resolve;
      });
      db.close();
      return rows.some((r) => r.key.startsWith("keys:"));
    });
    expect(moved).toBe(true);
    await page.goto("/dashboard");
    await lockScreen(page).waitFor({ state: "visible" });
    expect(await page.locator("#entries li").count()).toBe(0);
    expect(await metaKeys(page)).not.toContain("keys");
  });

  it("a new sign-in (the token expired meanwhile) opens the vault despite the old idle time", async () => {
    await context.clearCookies();
    await signInThroughPage(page, user.token, PASSPHRASE);
    expect(await lockScreen(page).isHidden()).toBe(true);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha", "Bravo"]);
    await page.getByRole("button", { name: "Lock", exact: true }).click();
    await lockScreen(page).waitFor({ state: "visible" });
  });

  it("signs out from the lock screen and clears everything", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    const after = await localState(page);
    expect({ entries: after.entries, pending: after.pending, metadata: after.metadata }).toEqual({
      entries: 0,
      pending: 0,
      metadata: 0,
    });
    expect(after.caches["app-sync-v1"]).toBeUndefined();
  });
});
