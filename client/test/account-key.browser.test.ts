import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AccountKeyError,
  kekOf,
  openAccountKey,
  type AccountKeyWrap,
} from "../../core/crypto/account-key";
import { PBKDF2_ITERATIONS, passphraseRoot } from "../../core/crypto/crypto";
import { apiAs, openFor } from "./support/api";
import {
  dashboardReady,
  entryNames,
  launch,
  newUser,
  openEntry,
  revealedField,
  screenshot,
  signInThroughPage,
  signInWithProvider,
  type Browser,
  type Page,
} from "./support/browser";
import { openSection } from "./support/journey";
import { keysOf, seedEntries } from "./support/seed";
import { server } from "./support/server";

// An account made before the account key (its vault sealed under the passphrase's own keys,
// through the API as the web client sealed it then) moves over at its first sign-in, and a
// passphrase change then wraps the account key again: one write, no entry touched, every entry
// read with the new passphrase and none with the old.
const OLD = "the passphrase from before";
const NEW = "the passphrase from after";
const base = server().baseUrl;
const ENTRIES = [
  { name: "Alpha", website: "alpha.example", username: "alice", password: "pw-alpha" },
  { name: "Bravo", website: "bravo.example", username: "bob", password: "pw-bravo" },
  { name: "Charlie", website: "charlie.example", username: "carol", password: "pw-charlie" },
];
let browser: Browser;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;
let api: Awaited<ReturnType<typeof apiAs>>;
let before: Map<string, any>;

const wrapOnServer = async (): Promise<AccountKeyWrap | null> => {
  const { status, body } = await api.get("/api/account-key");
  expect(status).toBe(200);
  return body.account_key;
};
const opensWith = async (passphrase: string, wrap: AccountKeyWrap) =>
  openAccountKey(
    await kekOf(await passphraseRoot(passphrase, user.sub, wrap.kdf_iterations)),
    user.sub,
    wrap,
  ).then(
    () => true,
    (e) => {
      if (e instanceof AccountKeyError) return false;
      throw e;
    },
  );

async function signInWith(passphrase: string) {
  await signInWithProvider(page, user.token);
  await page.getByLabel("Master passphrase").fill(passphrase);
  await page.getByRole("button", { name: "Open vault" }).click();
}

beforeAll(async () => {
  user = await newUser("acctkey");
  api = await apiAs(base, user.token);
  await seedEntries(user, OLD, ENTRIES);
  before = await api.entries();
  browser = await launch();
  page = await (await browser.newContext({ baseURL: base })).newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
});

afterAll(async () => {
  await browser?.close();
});

describe("an account from before the account key", () => {
  it("has no wrap until its first sign-in, which opens the vault and writes the wrap of its keys", async () => {
    expect(await wrapOnServer()).toBeNull();
    await signInThroughPage(page, user.token, OLD);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha", "Bravo", "Charlie"]);
    const wrap = await wrapOnServer();
    expect(wrap).toMatchObject({ key_version: 1, revision: 1, kdf_iterations: PBKDF2_ITERATIONS });
    expect(await opensWith(OLD, wrap!)).toBe(true);
    // Moving over sealed nothing again: the server's entries are as they were.
    const now = await api.entries();
    for (const { name } of ENTRIES) {
      expect(now.get(name).wrapped_item_key).toBe(before.get(name).wrapped_item_key);
      expect(now.get(name).encrypted_data).toBe(before.get(name).encrypted_data);
    }
  });

  it("changes the passphrase with one write of the wrap: no entry is re-keyed", async () => {
    await openSection(page, "Account");
    await page.getByLabel("Current master passphrase").fill(OLD);
    await page.getByLabel("New master passphrase").fill(NEW);
    await page.getByLabel("Repeat the new passphrase").fill(NEW);
    const reloaded = page.waitForEvent("load");
    await page.getByRole("button", { name: "Change passphrase" }).click();
    await reloaded;
    await dashboardReady(page);
    await screenshot(page, "screenshots/account-key-changed.png");
    expect(await page.locator("#pending").getAttribute("data-count")).toBe("0");
    const wrap = await wrapOnServer();
    expect(wrap).toMatchObject({ key_version: 1, revision: 2 });
    expect(await opensWith(NEW, wrap!)).toBe(true);
    expect(await opensWith(OLD, wrap!)).toBe(false);
    const now = await api.entries();
    const keys = await keysOf(user, OLD);
    for (const { name, password } of ENTRIES) {
      expect(now.get(name).wrapped_item_key).toBe(before.get(name).wrapped_item_key);
      expect(now.get(name).name_hash).toBe(before.get(name).name_hash);
      // The account key is the moved-over vault's own: what it opened before, it opens now.
      expect((await openFor(keys, user.sub, now.get(name))).password).toBe(password);
    }
  });

  it("after signing out, the old passphrase is refused and the new one reads every entry", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    await signInWith(OLD);
    await expect
      .poll(() => page.getByRole("alert").innerText())
      .toBe("This passphrase does not open the vault");
    await page.getByLabel("Master passphrase").fill(NEW);
    await page.getByRole("button", { name: "Open vault" }).click();
    await page.waitForURL("**/vault");
    await dashboardReady(page);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha", "Bravo", "Charlie"]);
    for (const { name, password } of ENTRIES) {
      await openEntry(page, name);
      await expect.poll(() => revealedField(page, "password")).toBe(password);
    }
    expect(await page.locator("#foreign-key").isHidden()).toBe(true);
    expect((await wrapOnServer())?.revision).toBe(2);
  });

  it("locks and unlocks on the lock screen with the new passphrase only", async () => {
    await page.getByRole("button", { name: "Lock", exact: true }).click();
    await page.getByLabel("Master passphrase").waitFor();
    await page.getByLabel("Master passphrase").fill(OLD);
    await page.getByRole("button", { name: "Unlock" }).click();
    await expect
      .poll(() => page.locator("#unlock-error").innerText())
      .toBe("This passphrase does not open the vault");
    await page.getByLabel("Master passphrase").fill(NEW);
    await page.getByRole("button", { name: "Unlock" }).click();
    await dashboardReady(page);
    await openEntry(page, "Charlie");
    await expect.poll(() => revealedField(page, "password")).toBe("pw-charlie");
  });
});
