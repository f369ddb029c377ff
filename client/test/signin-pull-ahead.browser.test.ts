import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blindIndexes, deriveVaultKeys } from "../../core/crypto/crypto";
import { apiAs, sealFor } from "./support/api";
import {
  launch,
  localState,
  newUser,
  screenshot,
  signInWithCookie,
  submitSignIn,
  type Browser,
  type Page,
} from "./support/browser";
import type { Route } from "playwright-core";
import { base } from "./support/journey";

// A new browser's first pull starts on the sign-in page at the click on "Open vault" (while the
// passphrase is derived and the vault page loads), so the vault page lists the pages it stored from
// its first read and its own engine resumes the rest. The service worker is kept out of these
// browsers so each request is seen as the page made it.
const PASSPHRASE = "pull ahead passphrase 1";
const COUNT = 300;
let browser: Browser;
let owner: Awaited<ReturnType<typeof newUser>>;

/** A vault shorter than the pull's first page (200 rows), longer than a window's rows. */
const SHORT = 120;

/** Entries sealed as the web client seals them, pushed through sync 100 at a time. */
async function seed(who: Awaited<ReturnType<typeof newUser>>, count: number, idTail: string) {
  const keys = await deriveVaultKeys(PASSPHRASE, who.sub);
  const api = await apiAs(base(), who.token);
  const now = new Date().toISOString();
  for (let i = 0; i < count; i += 100) {
    const mutations = await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, async (_, k) => {
        const n = i + k;
        const e = {
          name: `Entry ${String(n).padStart(4, "0")}`,
          website: `site${n}.example.test`,
          username: `user${n}@example.test`,
        };
        const id = `${String(n).padStart(8, "0")}-0000-4000-8000-${idTail}`;
        const envelope = await sealFor(
          keys,
          who.sub,
          { id, website: e.website, url: null },
          { username: e.username, password: `pw-${n}` },
        );
        const idx = await blindIndexes(keys, {
          name: e.name,
          website: e.website,
          username: e.username,
        });
        const data = {
          name: e.name,
          website: e.website,
          url: null,
          tags: [],
          ...envelope,
          encryption_version: 3,
          name_hash: idx.name_hash,
          username_hash: idx.username_hash,
          domain_hash: idx.domain_hash,
          search_tokens: idx.search_tokens,
        };
        return { action: "create", id, data, clientUpdatedAt: now };
      }),
    );
    const res = await api.post("/api/passwords/sync", { mutations });
    expect(res.status).toBe(200);
  }
}

/**
 * Answers a pull with its header line and first page only, as a connection dropped after them
 * leaves it; tells how many changes that page held before the page can read them.
 */
async function firstPageOnly(route: Route, held: (changes: number) => void): Promise<void> {
  const res = await route.fetch();
  const lines = (await res.text()).split("\n");
  held((JSON.parse(lines[1]!) as { changes: unknown[] }).changes.length);
  await route.fulfill({
    status: res.status(),
    contentType: res.headers()["content-type"],
    body: `${lines.slice(0, 2).join("\n")}\n`,
  });
}

/** The store's metadata keys that start with `prefix`, and the user ids its entries belong to. */
const stored = (p: Page, prefix: string) =>
  p.evaluate(
    (prefix) =>
      new Promise<{ keys: string[]; owners: string[] }>((resolve, reject) => {
        const open = indexedDB.open("app-sync");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction(["entries", "metadata"]);
          const keys = tx.objectStore("metadata").getAllKeys();
          const entries = tx.objectStore("entries").getAll();
          tx.oncomplete = () => {
            resolve({
              keys: (keys.result as string[]).filter((k) => String(k).startsWith(prefix)),
              owners: [...new Set((entries.result as { userId: string }[]).map((e) => e.userId))],
            });
            open.result.close();
          };
        };
      }),
    prefix,
  );

beforeAll(async () => {
  owner = await newUser("pullahead");
  await seed(owner, COUNT, "00000000a4ea");
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("the first pull of a new browser, started at the click on Open vault", () => {
  it("is sent from the sign-in page; the vault page lists its first page while its own resumed pull is held, then every entry once", async () => {
    const context = await browser.newContext({
      baseURL: base(),
      viewport: { width: 1280, height: 900 },
      serviceWorkers: "block",
    });
    const pulls: { from: string; search: string }[] = [];
    let firstPage = 0;
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    await context.route("**/api/passwords/sync*", async (route) => {
      const req = route.request();
      if (req.method() !== "GET") return route.continue();
      pulls.push({ from: new URL(req.frame().url()).pathname, search: new URL(req.url()).search });
      // The pull ahead ends after its first page, as a dropped connection (or the navigation) leaves it.
      if (pulls.length === 1) return firstPageOnly(route, (n) => (firstPage = n));
      // The vault page's own pull waits for the test: what the list shows meanwhile came from the store.
      if (pulls.length === 2) await held;
      return route.continue();
    });
    const page = await context.newPage();
    await signInWithCookie(page, owner.token);
    await submitSignIn(page, PASSPHRASE);
    await page.waitForURL("**/vault");
    // The pull ahead was made by the sign-in page, as a full pull (no cursor, no position), and
    // stopped after its first page.
    expect(pulls[0]).toEqual({ from: "/", search: "" });
    expect(firstPage).toBeGreaterThan(0);
    expect(firstPage).toBeLessThan(COUNT);
    // Its first page is listed while the vault page's pull is still held.
    await expect
      .poll(() => page.locator("#entries-heading").innerText(), { timeout: 30_000 })
      .toBe(`Entries (${firstPage})`);
    expect(await page.locator("#entries li[data-id]").first().isVisible()).toBe(true);
    // More pages are on their way: only the rows in view and a margin are drawn, not the whole page.
    expect(await page.locator("#entries li[data-id]").count()).toBeLessThan(firstPage);
    // The vault page's engine starts after its first read, so its pull may come just after the list.
    await expect.poll(() => pulls.length, { timeout: 30_000 }).toBe(2);
    expect(await page.locator("#entries-heading").innerText()).toBe(`Entries (${firstPage})`);
    expect(pulls[1]!.from).toBe("/vault");
    expect(pulls[1]!.search).toMatch(/[?&]resume=/);
    await screenshot(page, "screenshots/signin-pull-ahead-first-page-1280.png");
    release();
    await expect
      .poll(() => page.locator("#entries-heading").innerText(), { timeout: 60_000 })
      .toBe(`Entries (${COUNT})`);
    // Every entry once, the pull's position gone and its cursor kept.
    await expect
      .poll(() => page.locator("#net-state").innerText(), { timeout: 30_000 })
      .toBe("Online");
    expect((await localState(page)).entries).toBe(COUNT);
    expect((await stored(page, "resume:")).keys).toEqual([]);
    expect((await stored(page, "cursor:")).keys).toEqual([`cursor:${owner.sub}`]);
    await context.close();
  }, 180_000);

  it("opens the vault in the sign-in page's own document, with no second page load; a reload then loads the vault page itself", async () => {
    const context = await browser.newContext({
      baseURL: base(),
      viewport: { width: 1280, height: 900 },
      serviceWorkers: "block",
    });
    const page = await context.newPage();
    await signInWithCookie(page, owner.token);
    const documents: string[] = [];
    page.on("request", (r) => {
      if (r.isNavigationRequest() && r.frame() === page.mainFrame())
        documents.push(new URL(r.url()).pathname);
    });
    // A mark on the sign-in page's window: a navigation would leave it behind.
    await page.evaluate(
      () => ((window as unknown as { signInWindow?: boolean }).signInWindow = true),
    );
    await submitSignIn(page, PASSPHRASE);
    await page.waitForURL("**/vault");
    await expect
      .poll(() => page.locator("#entries-heading").innerText(), { timeout: 60_000 })
      .toBe(`Entries (${COUNT})`);
    expect(await page.locator("#entries li[data-id]").first().isVisible()).toBe(true);
    expect(documents).toEqual([]);
    expect(
      await page.evaluate(() => (window as unknown as { signInWindow?: boolean }).signInWindow),
    ).toBe(true);
    // The pulls were sent by the pull worker, which reads their answers: the page's own thread
    // fetched the sign-in's calls (its resource timing lists them) and never a pull.
    const fetched = await page.evaluate(() =>
      performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname),
    );
    expect(fetched).toContain("/api/auth/session");
    expect(fetched.filter((p) => p === "/api/passwords/sync")).toEqual([]);
    // The shell as a load of its page leaves it: its markup only, its title, its navigation working.
    expect(await page.locator("#signin, #signin-start").count()).toBe(0);
    expect(await page.title()).toBe("Vault · Credential vault");
    await page.locator("#app-nav").getByRole("link", { name: "Account", exact: true }).click();
    await page.waitForURL("**/settings");
    await expect.poll(() => page.title()).toBe("Account · Credential vault");
    await page.goBack();
    await page.waitForURL("**/vault");
    await expect
      .poll(() => page.locator("#entries-heading").innerText(), { timeout: 30_000 })
      .toBe(`Entries (${COUNT})`);
    expect(documents).toEqual([]);
    // A reload is the vault page's own load, from the store, with the keys kept.
    await page.reload();
    await expect
      .poll(() => page.locator("#entries-heading").innerText(), { timeout: 60_000 })
      .toBe(`Entries (${COUNT})`);
    expect(documents).toEqual(["/vault"]);
    expect(
      await page.evaluate(() => (window as unknown as { signInWindow?: boolean }).signInWindow),
    ).toBeUndefined();
    await context.close();
  }, 180_000);

  it("draws a vault shorter than a page whole once its first sync has ended", async () => {
    const short = await newUser("pullahead-short");
    await seed(short, SHORT, "0000000054e7");
    const context = await browser.newContext({
      baseURL: base(),
      viewport: { width: 1280, height: 900 },
      serviceWorkers: "block",
    });
    const page = await context.newPage();
    await signInWithCookie(page, short.token);
    await submitSignIn(page, PASSPHRASE);
    await page.waitForURL("**/vault");
    await expect
      .poll(() => page.locator("#entries-heading").innerText(), { timeout: 60_000 })
      .toBe(`Entries (${SHORT})`);
    await expect
      .poll(async () => (await stored(page, "cursor:")).keys, { timeout: 60_000 })
      .toEqual([`cursor:${short.sub}`]);
    // Every row is in the page (a short list is not virtualised once whole), in order, the last one reachable by scrolling.
    await expect
      .poll(() => page.locator("#entries li[data-id]").count(), { timeout: 30_000 })
      .toBe(SHORT);
    expect(await page.locator("#entries li[data-id] .name").last().innerText()).toBe(
      `Entry ${String(SHORT - 1).padStart(4, "0")}`,
    );
    await page.locator("#entries li[data-id]").last().scrollIntoViewIfNeeded();
    expect(await page.locator("#entries li[data-id]").last().isVisible()).toBe(true);
    await context.close();
  }, 180_000);

  it("says why a pull was refused: an answer the worker does not take is asked again by the page, whose client reads the refusal", async () => {
    const context = await browser.newContext({
      baseURL: base(),
      viewport: { width: 1280, height: 900 },
      serviceWorkers: "block",
    });
    let refusing = true;
    let refused = 0;
    await context.route("**/api/passwords/sync*", async (route) => {
      if (route.request().method() !== "GET" || !refusing) return route.continue();
      refused++;
      return route.fulfill({
        status: 500,
        contentType: "application/json",
        body: JSON.stringify({
          error: "Database unavailable",
          code: "INTERNAL_ERROR",
          status: 500,
        }),
      });
    });
    const page = await context.newPage();
    await signInWithCookie(page, owner.token);
    await submitSignIn(page, PASSPHRASE);
    await page.waitForURL("**/vault");
    await expect
      .poll(() => page.locator("#net-state").innerText(), { timeout: 60_000 })
      .toBe("Online · the server could not sync just now; it tries again shortly");
    // Each pull asked twice: by the worker, then by the page.
    expect(refused).toBeGreaterThanOrEqual(2);
    expect((await localState(page)).entries).toBe(0);
    refusing = false;
    await page.locator("#sync-now").click();
    await expect
      .poll(() => page.locator("#entries-heading").innerText(), { timeout: 60_000 })
      .toBe(`Entries (${COUNT})`);
    await expect
      .poll(() => page.locator("#net-state").innerText(), { timeout: 30_000 })
      .toBe("Online");
    await context.close();
  }, 180_000);

  it("leaves what a failed sign-in pulled to its own user only: another user's sign-in on that browser clears it", async () => {
    const context = await browser.newContext({
      baseURL: base(),
      viewport: { width: 1280, height: 900 },
      serviceWorkers: "block",
    });
    // The pull ahead's connection drops after its first page, so what it left behind is a known
    // part of the vault whatever the race between the stream and the passphrase's derivation.
    let firstPage = 0;
    await context.route("**/api/passwords/sync*", async (route) => {
      const req = route.request();
      if (req.method() !== "GET" || firstPage > 0) return route.continue();
      return firstPageOnly(route, (n) => (firstPage = n));
    });
    const page = await context.newPage();
    await signInWithCookie(page, owner.token);
    await page.getByLabel("Master passphrase").fill("not the passphrase of this vault");
    await page.getByRole("button", { name: "Open vault" }).click();
    await expect
      .poll(() => page.locator("#signin-error").innerText(), { timeout: 30_000 })
      .toBe("This passphrase does not open the vault");
    // The pull ahead stored its first page: the owner's ciphertext, with no session beside it.
    await expect.poll(() => firstPage, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(firstPage).toBeLessThan(COUNT);
    await expect
      .poll(async () => (await localState(page)).entries, { timeout: 60_000 })
      .toBe(firstPage);
    expect((await stored(page, "session")).keys).toEqual([]);
    expect((await stored(page, "")).owners).toEqual([owner.sub]);
    // Another person signs in on this browser (a new, empty vault of theirs).
    const other = await newUser("pullahead-other");
    await context.clearCookies();
    await signInWithCookie(page, other.token);
    await submitSignIn(page, "another person's passphrase 2");
    await page.waitForURL("**/vault");
    await page.locator("body[data-ready=true]").waitFor({ timeout: 30_000 });
    const after = await stored(page, "");
    expect(after.owners).toEqual([]);
    expect(after.keys.some((k) => k.includes(owner.sub))).toBe(false);
    expect((await localState(page)).entries).toBe(0);
    await context.close();
  }, 180_000);
});
