import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { startLoginSite } from "../../test/support/login-site";
import { newUser, screenshot, signInThroughPage, type BrowserContext } from "./support/browser";
import {
  buildExtension,
  deriveVaultKeys,
  extensionStatus,
  frameText,
  launchWithExtension,
  newProfile,
  openFillMenu,
  openPage,
  pressInFrame,
  seedEntries,
  startRelay,
  unlockInPopup,
  type Heard,
  type Seed,
} from "./support/extension";

// The extension's first sync on a new browser: the vault is unlocked and the fill menu answers
// while the pull is still under way (held back at a relay in front of the worker), and a pull cut
// part-way resumes where it was cut rather than starting again. The web app talks to the worker
// directly; only the extension's traffic crosses the relay.
const PASSPHRASE = "extension first sync passphrase";
const SECRET = "first-sync-secret-7d2";
/** More than the pull's first read (200 rows), so the answer has several pages. */
const COUNT = 600;
const base = server().baseUrl;
let site: Awaited<ReturnType<typeof startLoginSite>>;
let relay: Awaited<ReturnType<typeof startRelay>>;
let user: Awaited<ReturnType<typeof newUser>>;
const contexts: BrowserContext[] = [];

const PULL = /^GET \/api\/passwords\/sync\b/;
const isPull = (h: Heard) => PULL.test(h.line);
const at = (host: string, path: string) => `http://${host}:${new URL(site.url).port}${path}`;

/** A new browser profile with the extension, signed in to the web app (which syncs on its own). */
async function newBrowser() {
  const { context } = await launchWithExtension(newProfile(), base);
  contexts.push(context);
  const app = await context.newPage();
  await app.goto(base);
  await signInThroughPage(app, user.token, PASSPHRASE);
  await app.close();
  return context;
}

beforeAll(async () => {
  site = await startLoginSite();
  relay = await startRelay({ host: "127.0.0.1", port: Number(new URL(base).port) });
  buildExtension(relay.url);
  user = await newUser("ext-first-sync");
  const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  const seeds: Seed[] = Array.from({ length: COUNT - 1 }, (_, n) => ({
    name: `Filler ${n}`,
    website: `filler${n}.example.test`,
    username: `user${n}`,
    password: `pw-${n}`,
  }));
  seeds.splice(COUNT / 2, 0, {
    name: "First sync",
    website: "firstsync.test",
    username: "fiona",
    password: SECRET,
  });
  // The server takes at most 100 mutations a batch.
  for (let i = 0; i < seeds.length; i += 100)
    await seedEntries(base, user, keys, seeds.slice(i, i + 100));
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await relay?.stop();
  await site?.close();
});

describe("the extension's first sync", () => {
  it("unlocks and fills while the first pull is held back, then counts the entries in as they arrive", async () => {
    relay.pace(PULL);
    const context = await newBrowser();
    const pullsBefore = relay.heard().filter(isPull).length;
    const popup = await unlockInPopup(context, PASSPHRASE);
    await expect.poll(() => relay.heard().filter(isPull).length).toBeGreaterThan(pullsBefore);
    // The popup says the first sync is under way, with nothing of it arrived yet.
    await expect
      .poll(() => popup.locator("#sync").innerText())
      .toContain("First sync: 0 entries so far");

    const page = await openPage(context, at("firstsync.test", "/login"));
    const menu = await openFillMenu(page);
    expect(await frameText(menu)).toContain("First sync");
    expect(await menu.locator("body").getAttribute("data-source")).toBe("server");
    // Still held: the menu was answered with none of the pull stored.
    expect(await extensionStatus(popup)).toMatchObject({ cached: 0, synced: false });
    await pressInFrame(menu, /First sync/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(SECRET);
    await screenshot(popup, "extension-first-sync-popup.png");

    relay.pace(null);
    await expect
      .poll(async () => extensionStatus(popup), { timeout: 60_000 })
      .toMatchObject({ cached: COUNT, synced: true });
    await expect
      .poll(() => popup.locator("#sync").innerText(), { timeout: 10_000 })
      .toMatch(/^Synced /);
    await page.close();
  });

  it("a first sync cut part-way resumes from where it was cut", async () => {
    // Trickled, so the cut lands between the first page and the last.
    relay.pace(PULL, 40_000);
    const context = await newBrowser();
    const pullsBefore = relay.heard().filter(isPull).length;
    const popup = await unlockInPopup(context, PASSPHRASE);
    await expect
      .poll(async () => (await extensionStatus(popup)).cached, { timeout: 60_000 })
      .toBeGreaterThan(0);
    const partial = await extensionStatus(popup);
    expect(partial.synced).toBe(false);
    expect(partial.cached).toBeLessThan(COUNT);
    relay.cut(PULL);
    relay.pace(null);

    await expect
      .poll(async () => extensionStatus(popup), { timeout: 60_000 })
      .toMatchObject({ cached: COUNT, synced: true });
    const pulls = relay.heard().filter(isPull).slice(pullsBefore);
    console.log(
      `extension first sync: ${partial.cached} entries stored before the cut; pulls: ${pulls.map((h) => `${h.line} ${h.status ?? ""}`).join("; ")}`,
    );
    // The pull after the cut asks from the stored position: only the first asked for everything
    // (neither a cursor nor a position), and a later one for the rest.
    const fromScratch = pulls.filter((h) => !/[?&](since|resume)=/.test(h.line));
    expect(fromScratch).toHaveLength(1);
    expect(fromScratch[0]).toBe(pulls[0]);
    expect(pulls.some((h) => h.line.includes("resume="))).toBe(true);
  });
});
