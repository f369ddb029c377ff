import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { deriveVaultKeys, type VaultKeys } from "../../core/crypto/crypto";
import { RECENT_PULL_MS } from "../../core/sync/sync-engine";
import { apiAs, sealFor } from "./support/api";
import {
  dashboardReady,
  entryNames,
  fillEntry,
  launch,
  newUser,
  signInThroughPage,
  waitForPending,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";

// Rule 4's 30-second schedule, driven by Playwright's fake clock instead of waiting.
const PASSPHRASE = "periodic passphrase";
const base = server().baseUrl;
let browser: Browser;
let page: Page;
let context: BrowserContext;
let api: Awaited<ReturnType<typeof apiAs>>;
let keys: VaultKeys;
let userId: string;
let syncGets = 0;

const isSyncGet = (r: { url(): string; method(): string }) =>
  r.method() === "GET" && new URL(r.url()).pathname === "/api/passwords/sync";

async function renameOnServer(from: string, to: string) {
  const entry = (await api.entries()).get(from);
  const res = await api.patch(`/api/passwords/${entry.id}`, {
    name: to,
    ...(await sealFor(keys, userId, entry, { username: "sam", password: `pw-${to}` })),
  });
  expect(res.status).toBe(200);
}

/** Emulates the tab going to the background or coming back: what the engine reads and listens to. */
async function setVisibility(state: "visible" | "hidden") {
  await page.evaluate((s) => {
    Object.defineProperty(document, "visibilityState", { value: s, configurable: true });
    Object.defineProperty(document, "hidden", { value: s === "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  }, state);
}

beforeAll(async () => {
  const user = await newUser("periodic");
  userId = user.sub;
  api = await apiAs(base, user.token);
  keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  browser = await launch();
  context = await browser.newContext({ baseURL: base });
  // Installed before any page loads, so the dashboard's setInterval runs on the fake clock.
  await context.clock.install();
  // A browser whose live-sync connection cannot open (a proxy that drops WebSockets) keeps rule
  // 4's schedule; with live sync these changes would arrive at once (live-sync.browser.test.ts).
  await context.routeWebSocket(/\/api\/sync\/live$/, (ws) =>
    ws.close({ code: 1011, reason: "blocked by the test" }),
  );
  page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  page.on("request", (r) => {
    if (isSyncGet(r)) syncGets++;
  });
  await signInThroughPage(page, user.token, PASSPHRASE);
  await fillEntry(page, {
    name: "Shared",
    website: "shared.example",
    username: "sam",
    password: "pw-shared",
  });
  await waitForPending(page, 0);
});

afterAll(async () => {
  await browser?.close();
});

describe("periodic sync (every 30 s while visible and online)", () => {
  it("shows a change made on another device once the clock passes 30 s, and not before", async () => {
    // A fresh page load starts the 30-second timer; its first sync ends before the server changes.
    // A page opened within RECENT_PULL_MS of the last pull skips its first pull (the 30-second
    // timer catches up), so the clock first moves past that while the old tab is in the background
    // (a hidden tab does not sync), and this page's first sync is a pull.
    await setVisibility("hidden");
    await page.clock.fastForward(RECENT_PULL_MS + 1_000);
    const firstPull = page.waitForResponse((r) => isSyncGet(r.request()));
    await page.reload();
    await firstPull;
    await dashboardReady(page);
    await renameOnServer("Shared", "Shared v2");

    await page.waitForTimeout(1000);
    await page.clock.fastForward("00:20");
    await page.waitForTimeout(1500);
    expect(await entryNames(page)).toEqual(["Shared"]);

    const before = syncGets;
    await page.clock.fastForward("00:11");
    await expect.poll(() => entryNames(page)).toEqual(["Shared v2"]);
    expect(syncGets).toBe(before + 1);
  });

  it("does not sync while the tab is hidden, and syncs as soon as it is visible again", async () => {
    await setVisibility("hidden");
    await renameOnServer("Shared v2", "Shared v3");
    const before = syncGets;
    await page.clock.fastForward("00:31");
    await page.clock.fastForward("00:31");
    await page.waitForTimeout(1500);
    expect(syncGets).toBe(before);
    expect(await entryNames(page)).toEqual(["Shared v2"]);

    await setVisibility("visible");
    await expect.poll(() => entryNames(page)).toEqual(["Shared v3"]);
    expect(syncGets).toBe(before + 1);
  });

  it("does not try while offline, and syncs on the online event", async () => {
    await context.setOffline(true);
    await expect.poll(() => page.locator("#net-state").innerText()).toBe("Offline");
    await renameOnServer("Shared v3", "Shared v4");
    const before = syncGets;
    await page.clock.fastForward("00:31");
    await page.waitForTimeout(1500);
    expect(syncGets).toBe(before);

    await context.setOffline(false);
    await expect.poll(() => entryNames(page)).toEqual(["Shared v4"]);
  });
});
