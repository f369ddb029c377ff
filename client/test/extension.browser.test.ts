import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { type EntrySecrets, type VaultKeys } from "../../core/crypto/crypto";
import { openEntry, placeOf } from "../../core/crypto/envelope";
import { startLoginSite } from "../../test/support/login-site";
import { totpCode, TOTP_DEFAULTS } from "../../src/kernel/totp";
import { apiAs } from "./support/api";
import {
  newUser,
  screenshot,
  signInThroughPage,
  type BrowserContext,
  type Page,
} from "./support/browser";
import {
  buildExtension,
  deriveVaultKeys,
  extensionFrame,
  extensionFrames,
  extensionStatus,
  frameText,
  launchWithExtension,
  newProfile,
  openFillMenu,
  openPage,
  openPopup,
  pressInFrame,
  seedEntries,
  startRelay,
} from "./support/extension";

// The browser extension, unpacked in Chromium's new headless mode, against the real worker (behind
// a relay that can drop the connection) and a local login site under *.test names on loopback.
const PASSPHRASE = "extension passphrase";
const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const base = server().baseUrl;
let site: Awaited<ReturnType<typeof startLoginSite>>;
let relay: Awaited<ReturnType<typeof startRelay>>;
let user: Awaited<ReturnType<typeof newUser>>;
let keys: VaultKeys;
let profile: string;
let context: BrowserContext;
let sitePort: string;

const at = (host: string, path: string) => `http://${host}:${sitePort}${path}`;
const register = (username: string, password: string) =>
  fetch(`${site.url}/register`, { method: "POST", body: JSON.stringify({ username, password }) });

async function unlockInPopup(passphrase: string) {
  const popup = await openPopup(context);
  await popup.getByLabel("Master passphrase").fill(passphrase);
  await popup.getByRole("button", { name: "Unlock" }).click();
  return popup;
}

const openLogin = (url: string) => openPage(context, url);

/** The person types a sign-in the vault does not have (a new account, a changed password) and submits it. */
async function signInByHand(username: string, password: string) {
  await register(username, password);
  const page = await openLogin(at("login.site.test", "/login"));
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: `Welcome, ${username}` }).waitFor();
  return { page, bar: await extensionFrame(page) };
}

/** Entries as the server holds them, with the secrets a device with the keys reads from them. */
async function serverEntries() {
  const api = await apiAs(base, user.token);
  const out = new Map<string, { row: any; secrets: EntrySecrets }>();
  for (const [name, row] of await api.entries())
    out.set(name, { row, secrets: (await openEntry(keys, placeOf(user.sub, row), row)).secrets });
  return out;
}

beforeAll(async () => {
  site = await startLoginSite();
  sitePort = new URL(site.url).port;
  relay = await startRelay({ host: "127.0.0.1", port: Number(new URL(base).port) });
  buildExtension(relay.url);
  user = await newUser("ext");
  keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await register("alice", "alice-site-pass");
  await seedEntries(base, user, keys, [
    { name: "Test site", website: "site.test", username: "alice", password: "alice-site-pass" },
    {
      name: "GitHub",
      website: "github.com",
      url: "https://github.com/login",
      username: "alice",
      password: "gh-pass",
    },
    {
      name: "Secure site",
      website: "secure.test",
      url: "https://secure.test/login",
      username: "bob",
      password: "bob-secure-pass",
    },
    {
      name: "OTP site",
      website: "otp.test",
      username: "olga",
      password: "olga-pass",
      totp: TOTP_SECRET,
    },
  ]);
  profile = newProfile();
  ({ context } = await launchWithExtension(profile, base));
  // The session comes from the web app: the user signs in there once.
  const app = await context.newPage();
  await app.goto(base);
  await signInThroughPage(app, user.token, PASSPHRASE);
  await app.close();
});

afterAll(async () => {
  await context?.close();
  await relay?.stop();
  await site?.close();
});

describe("the browser extension", () => {
  it("sees the web app's session and unlocks with the master passphrase only", async () => {
    const popup = await openPopup(context);
    expect(await popup.locator("body").getAttribute("data-state")).toBe("locked");
    expect(await extensionStatus(popup)).toMatchObject({ signedIn: true, unlocked: false });
    await popup.close();

    const wrong = await unlockInPopup("not the passphrase");
    await expect
      .poll(() => wrong.locator("#unlock-error").innerText())
      .toBe("This passphrase does not open the vault");
    expect((await extensionStatus(wrong)).unlocked).toBe(false);
    await wrong.close();

    const right = await unlockInPopup(PASSPHRASE);
    await right.locator("body[data-state=unlocked]").waitFor();
    await expect.poll(async () => (await extensionStatus(right)).lastSync).not.toBeNull();
    await right.close();
  });

  it("offers the site's sign-in inline, fills it, and the site accepts it", async () => {
    const page = await openLogin(at("login.site.test", "/login"));
    const menu = await openFillMenu(page);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("1");
    expect(await frameText(menu)).toContain("Test site");
    expect(await frameText(menu)).not.toContain("GitHub");
    await screenshot(page, "extension-inline-menu.png");

    await pressInFrame(menu, /Test site/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("alice-site-pass");
    expect(await page.getByLabel("Username").inputValue()).toBe("alice");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Welcome, alice" }).waitFor();
    expect(await (await fetch(`${site.url}/stats?u=alice`)).json()).toMatchObject({
      logins: 1,
      failed: 0,
    });
    await page.close();
  });

  it("lists matches in the popup, which fills the page", async () => {
    const page = await openLogin(at("login.site.test", "/login"));
    const popup = await openPopup(context);
    await popup.locator("body[data-matches='1']").waitFor();
    await popup.getByRole("button", { name: "Generate" }).click();
    await expect.poll(() => popup.getByLabel("Generated password").inputValue()).toHaveLength(20);
    expect(await popup.locator("#requirements").innerText()).toContain(
      "Default rules: 8–64 characters",
    );
    await screenshot(popup, "extension-popup.png");
    await popup.getByRole("button", { name: "Fill Test site alice" }).click();
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("alice-site-pass");
    await page.close();
  });

  it("fills the current TOTP code into a one-time-code field", async () => {
    const page = await openLogin(at("otp.test", "/login-otp"));
    await pressInFrame(await openFillMenu(page, "Code"), /OTP site/);
    await expect.poll(() => page.getByLabel("Code").inputValue()).toMatch(/^\d{6}$/);
    const code = await page.getByLabel("Code").inputValue();
    const now = Date.now() / 1000;
    const valid = await Promise.all(
      [now - 30, now].map((t) => totpCode({ secret: TOTP_SECRET, ...TOTP_DEFAULTS }, t)),
    );
    expect(valid).toContain(code);
    expect(await page.getByLabel("Password").inputValue()).toBe("olga-pass");
    await page.close();
  });

  it("draws the menu from its synced copy while live sync holds it current: the server hears no lookup, and a sign-in added elsewhere shows once live sync brings it", async () => {
    const host = "local-first.test";
    const lookups = () =>
      relay
        .heard()
        .filter((r) => r.line.startsWith("GET /api/passwords/match") && r.line.includes(host));
    const popup = await openPopup(context);
    try {
      await expect.poll(async () => (await extensionStatus(popup)).current).toBe(true);
      const before = (await extensionStatus(popup)).cached;
      await seedEntries(base, user, keys, [
        { name: "Lena", website: host, username: "lena", password: "lena-pass" },
      ]);
      // No sync is pressed and the periodic run is 30 s away: live sync's notice brings it.
      await expect.poll(async () => (await extensionStatus(popup)).cached).toBe(before + 1);
      await expect.poll(async () => (await extensionStatus(popup)).current).toBe(true);
      const page = await openLogin(at(host, "/login"));
      const menu = await openFillMenu(page);
      expect(await menu.locator("body").getAttribute("data-count")).toBe("1");
      expect(await frameText(menu)).toContain("Lena");
      expect(await frameText(menu)).not.toContain("(offline)");
      await pressInFrame(menu, /Lena/);
      await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("lena-pass");
      await page.close();
      // Neither the menu nor the fill told the server which sign-in page was open.
      expect(lookups()).toEqual([]);
    } finally {
      await popup.close();
    }
  });

  it("without live sync, asks the server again with If-None-Match: an unchanged vault answers 304 with the same sign-ins, a change made elsewhere shows at once", async () => {
    // Live sync cut: the synced copy is no longer known to be current, so each menu asks the server.
    relay.refuse(/^GET \/api\/sync\/live\b/);
    const popup = await openPopup(context);
    await expect.poll(async () => (await extensionStatus(popup)).current).toBe(false);
    await popup.close();
    const host = "revalidate.test";
    const lookups = () =>
      relay
        .heard()
        .filter((r) => r.line.startsWith("GET /api/passwords/match") && r.line.includes(host));
    const shows = async (names: string[]) => {
      const page = await openLogin(at(host, "/login"));
      const menu = await openFillMenu(page);
      expect(await menu.locator("body").getAttribute("data-count")).toBe(String(names.length));
      for (const name of names) expect(await frameText(menu)).toContain(name);
      await page.close();
      return lookups().at(-1);
    };
    await seedEntries(base, user, keys, [
      { name: "Rita first", website: host, username: "rita", password: "rita-pass-1" },
    ]);
    expect(await shows(["Rita first"])).toMatchObject({
      line: expect.any(String),
      conditional: false,
      status: 200,
    });
    expect(await shows(["Rita first"])).toMatchObject({ conditional: true, status: 304 });
    // Another device adds a sign-in for the host: the kept answer is no longer confirmed.
    await seedEntries(base, user, keys, [
      { name: "Rita second", website: host, username: "rita2", password: "rita-pass-2" },
    ]);
    expect(await shows(["Rita first", "Rita second"])).toMatchObject({
      conditional: true,
      status: 200,
    });
    const page = await openLogin(at(host, "/login"));
    const menu = await openFillMenu(page);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("2");
    expect(lookups().at(-1)).toMatchObject({ conditional: true, status: 304 });
    await screenshot(page, "extension-revalidated-menu.png");
    // What it fills after a 304 is the entry the server holds, opened on this device.
    await pressInFrame(menu, /Rita second/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("rita-pass-2");
    await page.close();
    // The fill looks the entry up again (another device added it, this one has not synced it yet):
    // that lookup, too, is a 304.
    expect(lookups().slice(3).length).toBeGreaterThan(0);
    for (const r of lookups().slice(3)) expect(r).toMatchObject({ conditional: true, status: 304 });
    relay.refuse(null);
  });

  it("offers nothing on a lookalike host", async () => {
    const page = await openLogin(at("site.test.evil.test", "/login"));
    const menu = await openFillMenu(page);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("0");
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    await page.close();
  });

  it("fills a same-origin frame but never a cross-origin one", async () => {
    const same = await openLogin(at("login.site.test", "/frame?src=/login"));
    await same.frameLocator("#inner").getByLabel("Password").click();
    const menu = await extensionFrame(same);
    expect(menu.parentFrame()?.url()).toContain("/login");
    await pressInFrame(menu, /Test site/);
    await expect
      .poll(() => same.frameLocator("#inner").getByLabel("Password").inputValue())
      .not.toBe("");
    await same.close();

    const cross = await openLogin(
      at("top.test", `/frame?src=${encodeURIComponent(at("login.site.test", "/login"))}`),
    );
    const frame = cross.frameLocator("#inner");
    await frame.locator("html[data-credential-vault=refuse-frame]").waitFor();
    await frame.getByLabel("Password").click();
    await new Promise((r) => setTimeout(r, 500));
    expect(extensionFrames(cross)).toHaveLength(0);
    expect(await frame.getByLabel("Password").inputValue()).toBe("");
    await cross.close();
  });

  it("never offers an https sign-in on a plain-http page: its scheme is sealed, so nothing confirms it there", async () => {
    const page = await openLogin(at("secure.test", "/login"));
    const menu = await openFillMenu(page);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("0");
    expect(await frameText(menu)).not.toContain("Secure site");
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    await page.close();
  });

  it("fills from its cache when the server cannot be reached", async () => {
    await relay.stop();
    try {
      // The live connection went with the relay: the copy answers as the offline cache.
      const popup = await openPopup(context);
      await expect.poll(async () => (await extensionStatus(popup)).current).toBe(false);
      await popup.close();
      const page = await openLogin(at("login.site.test", "/login"));
      const menu = await openFillMenu(page);
      expect(await frameText(menu)).toContain("(offline)");
      await pressInFrame(menu, /Test site/);
      await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("alice-site-pass");
      await page.close();
    } finally {
      await relay.resume();
    }
  });

  it("saves a new sign-in through sync, and the server holds only ciphertext", async () => {
    const { page, bar } = await signInByHand("carol", "carol-site-pass");
    expect(await frameText(bar)).toContain("Save the sign-in for login.site.test as carol?");
    await screenshot(page, "extension-save-offer.png");
    await pressInFrame(bar, "Save", "button");
    await expect.poll(() => bar.locator("body").getAttribute("data-state")).toBe("saved");

    await expect.poll(async () => (await serverEntries()).has("login.site.test")).toBe(true);
    const { row, secrets } = (await serverEntries()).get("login.site.test")!;
    expect(JSON.stringify(row)).not.toContain("carol-site-pass");
    expect(row.username).toBeNull();
    expect(row.encryption_version).toBe(3);
    expect(secrets).toMatchObject({ username: "carol", password: "carol-site-pass" });
    await page.close();
  });

  it("offers to update a changed password and updates the entry", async () => {
    const { page, bar } = await signInByHand("alice", "alice-new-pass");
    expect(await frameText(bar)).toContain("Update the password of alice on login.site.test?");
    await pressInFrame(bar, "Update", "button");
    await expect.poll(() => bar.locator("body").getAttribute("data-state")).toBe("saved");
    await expect
      .poll(async () => (await serverEntries()).get("Test site")?.secrets.password)
      .toBe("alice-new-pass");
    await page.close();
  });

  it("Lock clears the keys: pages get no fill until the passphrase is entered again", async () => {
    const popup = await openPopup(context);
    await popup.getByRole("button", { name: "Lock" }).click();
    await popup.locator("body[data-state=locked]").waitFor();
    expect((await extensionStatus(popup)).unlocked).toBe(false);
    const page = await openLogin(at("login.site.test", "/login"));
    const menu = await openFillMenu(page);
    expect(await frameText(menu)).toContain("locked");
    expect(await menu.locator("[role=menuitem]").count()).toBe(0);
    await page.close();
    await popup.close();
  });

  it("locks after the idle time", async () => {
    const popup = await unlockInPopup(PASSPHRASE);
    await popup.locator("body[data-state=unlocked]").waitFor();
    const [worker] = context.serviceWorkers();
    await worker!.evaluate(() => chrome.storage.local.set({ autoLockSeconds: 1 }));
    await expect.poll(async () => (await extensionStatus(popup)).unlocked).toBe(false);
    await worker!.evaluate(() => chrome.storage.local.remove("autoLockSeconds"));
    await popup.close();
  });

  it("is locked after a browser restart, and its store holds no key", async () => {
    const popup = await unlockInPopup(PASSPHRASE);
    await popup.locator("body[data-state=unlocked]").waitFor();
    await popup.close();
    await context.close();
    ({ context } = await launchWithExtension(profile, base));
    const after = await openPopup(context);
    expect(await extensionStatus(after)).toMatchObject({ signedIn: true, unlocked: false });
    const metaKeys = await after.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open("app-sync", 1);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const keys = await new Promise<string[]>((resolve) => {
        const r = db.transaction("metadata").objectStore("metadata").getAllKeys();
        r.onsuccess = () => resolve((r.result as string[]).map((k) => k.split(":")[0]!).sort());
      });
      const entries = await new Promise<number>((resolve) => {
        const r = db.transaction("entries").objectStore("entries").count();
        r.onsuccess = () => resolve(r.result);
      });
      db.close();
      return { keys, entries };
    });
    expect(metaKeys.keys).not.toContain("keys");
    expect(metaKeys.keys).toContain("keycheck");
    expect(metaKeys.entries).toBeGreaterThan(0);
    await after.close();
  });
});
