import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { startLoginSite } from "../../test/support/login-site";
import { apiAs } from "./support/api";
import {
  fillEntry,
  newUser,
  screenshot,
  signInThroughPage,
  waitForPending,
  type BrowserContext,
  type Page,
} from "./support/browser";
import {
  buildExtension,
  extensionStatus,
  frameText,
  launchWithExtension,
  newProfile,
  openFillMenu,
  openPage,
  startRelay,
  unlockInPopup,
  type Heard,
} from "./support/extension";

// Live sync in the extension: its vault document holds one live connection (through a relay that
// can drop it), and a change saved in the web app reaches the extension's fill cache without a
// sync press and without waiting for the 30-second run. The cache, not the server, is what the
// fill menu shows once the relay is down, so the menu proves the vault itself took the change.
const PASSPHRASE = "extension live passphrase";
const base = server().baseUrl;
let site: Awaited<ReturnType<typeof startLoginSite>>;
let relay: Awaited<ReturnType<typeof startRelay>>;
let context: BrowserContext;
let app: Page;
let popup: Page;
let api: Awaited<ReturnType<typeof apiAs>>;

const at = (host: string, path: string) => `http://${host}:${new URL(site.url).port}${path}`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isLive = (h: Heard) => h.line === "GET /api/sync/live";
const isPull = (h: Heard) => h.line.startsWith("GET /api/passwords/sync");

/** Waits (in a hook, where expect.poll is not available) until `ok` holds. */
async function until(ok: () => Promise<boolean>, what: string, timeout = 20_000) {
  const end = Date.now() + timeout;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await pause(50);
  }
}

/**
 * Resolves with Date.now() once the extension's vault (its IndexedDB, which the popup shares with
 * the offscreen document as pages of one extension origin) holds an entry named `name`. Read
 * locally, so watching costs the server nothing (the popup's status asks the server each time).
 */
function whenStored(name: string, timeout: number): Promise<number> {
  return popup.evaluate(
    ({ name, timeout }) =>
      new Promise<number>((resolve, reject) => {
        const until = Date.now() + timeout;
        const open = indexedDB.open("app-sync");
        open.onerror = () => reject(new Error("the extension's vault did not open"));
        open.onsuccess = () => {
          const db = open.result;
          const look = () => {
            const all = db.transaction("entries").objectStore("entries").getAll();
            all.onsuccess = () => {
              if (
                (all.result as { name?: string; deletedAt?: string | null }[]).some(
                  (e) => e.name === name,
                )
              )
                return resolve(Date.now());
              if (Date.now() > until)
                return reject(
                  new Error(`the extension's vault did not take ${name} in ${timeout} ms`),
                );
              setTimeout(look, 10);
            };
          };
          look();
        };
      }),
    { name, timeout },
  );
}

beforeAll(async () => {
  site = await startLoginSite();
  relay = await startRelay({ host: "127.0.0.1", port: Number(new URL(base).port) });
  buildExtension(relay.url);
  const user = await newUser("ext-live");
  api = await apiAs(base, user.token);
  ({ context } = await launchWithExtension(newProfile(), base));
  // The web app, in the same browser as the extension, talks to the worker directly: the relay
  // carries only the extension's traffic, so dropping it leaves the web app online.
  app = await context.newPage();
  app.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await app.goto(base);
  await signInThroughPage(app, user.token, PASSPHRASE);
  popup = await unlockInPopup(context, PASSPHRASE);
  await until(async () => (await extensionStatus(popup)).lastSync !== null, "the first sync");
  // Connected: the relay carried the upgrade and the worker switched protocols.
  await until(
    async () => relay.heard().some((h) => isLive(h) && h.status === 101),
    "the live connection",
  );
});

afterAll(async () => {
  await context?.close();
  await relay?.stop();
  await site?.close();
});

describe("live sync in the extension", () => {
  it("a save in the web app reaches the extension's fill cache within a second, with no sync press", async () => {
    const pullsBefore = relay.heard().filter(isPull).length;
    const saved = app
      .waitForResponse(
        (r) =>
          r.request().method() === "POST" &&
          ["/api/passwords/sync", "/api/passwords"].includes(new URL(r.url()).pathname) &&
          r.status() < 300,
      )
      .then(() => Date.now());
    await fillEntry(app, {
      name: "Live from the app",
      website: "livesync.test",
      username: "lina",
      password: "pw-live-ext",
    });
    const storedAt = whenStored("Live from the app", 10_000);
    const [savedAt, cachedAt] = await Promise.all([saved, storedAt]);
    const pull = relay.heard().filter(isPull).at(-1);
    console.log(
      `extension live sync: write response to the extension's vault holding it: ${cachedAt - savedAt} ms (its pull asked at +${(pull?.at ?? 0) - savedAt} ms)`,
    );
    expect(cachedAt - savedAt).toBeLessThan(1000);
    // The extension pulled because it was told (the only pull since), not because a run came due.
    expect(relay.heard().filter(isPull).length).toBe(pullsBefore + 1);

    // Off the network, the fill menu can only show what the extension's own vault holds.
    await relay.stop();
    const page = await openPage(context, at("livesync.test", "/login"));
    const menu = await openFillMenu(page);
    expect(await frameText(menu)).toContain("(offline)");
    expect(await frameText(menu)).toContain("Live from the app");
    await screenshot(page, "extension-live-sync-menu.png");
    await page.close();
  });

  it("a dropped connection reconnects and catches up with what changed while it was down", async () => {
    // The relay is down (since the previous case): the extension's connection is gone and its
    // reconnects are refused. The web app saves meanwhile; no notice can reach the extension.
    await relay.stop();
    const before = (await extensionStatus(popup)).cached;
    const pullsBefore = relay.heard().filter(isPull).length;
    await fillEntry(app, {
      name: "While the extension was away",
      website: "away-ext.test",
      username: "lina",
      password: "pw-away-ext",
    });
    await waitForPending(app, 0);
    expect((await api.entries()).has("While the extension was away")).toBe(true);
    await pause(1500);
    expect(relay.heard().filter(isPull).length).toBe(pullsBefore);

    const heardBefore = relay.heard().length;
    await relay.resume();
    const resumedAt = Date.now();
    // Reconnect waits back off from 1 s doubling (jittered), so the first try after the resume
    // comes within the window the failed tries reached: well under the 30-second run.
    const caughtUpAt = await whenStored("While the extension was away", 20_000);
    console.log(`extension live sync: relay back to caught up: ${caughtUpAt - resumedAt} ms`);
    // The connection is back too. (The 30-second run may have pulled first, while the connection
    // was still waiting out its backoff: then the greeting finds the cursor current and no second
    // pull follows; either way nothing waited for a press.)
    await expect
      .poll(
        () =>
          relay
            .heard()
            .slice(heardBefore)
            .some((h) => isLive(h) && h.status === 101),
        { timeout: 20_000 },
      )
      .toBe(true);
    const since = relay.heard().slice(heardBefore);
    console.log(
      `extension live sync: after the resume: ${since.map((h) => `+${h.at - resumedAt} ms ${h.line} ${h.status ?? ""}`).join("; ")}`,
    );
    expect(since.some(isPull)).toBe(true);
    // And the fill cache follows the vault (the status counts it).
    await expect.poll(async () => (await extensionStatus(popup)).cached).toBe(before + 1);
  });
});
