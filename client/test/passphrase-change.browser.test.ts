import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedEntries } from "./support/seed";
import { server } from "./support/server";
import {
  DecryptionError,
  deriveVaultKeys,
  PBKDF2_ITERATIONS,
  queryTokens,
  type VaultKeys,
} from "../../core/crypto/crypto";
import { wrapHeader } from "../../core/crypto/envelope";
import { apiAs, openFor } from "./support/api";
import {
  dashboardReady,
  entryNames,
  fillEntry,
  launch,
  localState,
  newUser,
  openEntry,
  revealedField,
  signInThroughPage,
  signInWithProvider,
  waitForPending,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { openSection } from "./support/journey";

// A master-passphrase change made offline: item keys re-wrapped and blind indexes recomputed in the
// browser, queued as updates, pushed once online; then only the new passphrase opens the vault.
const OLD = "the old master passphrase";
const NEW = "a brand new master passphrase";
const base = server().baseUrl;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let other: Page;
let waiting: Page;
let user: Awaited<ReturnType<typeof newUser>>;
let api: Awaited<ReturnType<typeof apiAs>>;
let oldKeys: VaultKeys;
let newKeys: VaultKeys;
let before: Map<string, any>;

async function changePassphrase(current: string, next: string, repeat = next) {
  await page.getByLabel("Current master passphrase").fill(current);
  await page.getByLabel("New master passphrase").fill(next);
  await page.getByLabel("Repeat the new passphrase").fill(repeat);
  await page.getByRole("button", { name: "Change passphrase" }).click();
}

async function signInWith(passphrase: string) {
  await signInWithProvider(page, user.token);
  await page.getByLabel("Master passphrase").fill(passphrase);
  await page.getByRole("button", { name: "Open vault" }).click();
}

beforeAll(async () => {
  user = await newUser("rotate");
  api = await apiAs(base, user.token);
  // A change makes key version 2 (envelope.ts: the wrap header names it).
  [oldKeys, newKeys] = await Promise.all([
    deriveVaultKeys(OLD, user.sub),
    deriveVaultKeys(NEW, user.sub, PBKDF2_ITERATIONS, 2),
  ]);
  browser = await launch();
  context = await browser.newContext({ baseURL: base });
  page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await seedEntries(user, OLD, [
    { name: "Alpha", website: "alpha.example", username: "alice", password: "pw-alpha" },
    { name: "Bravo", website: "bravo.example", username: "bob", password: "pw-bravo" },
    { name: "Charlie", website: "charlie.example", username: "carol", password: "pw-charlie" },
  ]);
  before = await api.entries();
  other = await (await browser.newContext({ baseURL: base })).newPage();
  waiting = await (await browser.newContext({ baseURL: base })).newPage();
  // The three browsers come to the seeded vault side by side.
  await Promise.all([
    (async () => {
      await signInThroughPage(page, user.token, OLD);
      await page.locator("#entries li").nth(2).waitFor();
    })(),
    (async () => {
      // A second device, signed in with the old passphrase before the change.
      await signInThroughPage(other, user.token, OLD);
      await other.locator("#entries li").nth(2).waitFor();
    })(),
    // A third browser left at the master passphrase form before the change: that page read the
    // vault's newest entries (key version 1) as the form appeared, and its click derives from them
    // while it asks the vault again.
    signInWithProvider(waiting, user.token),
  ]);
});

afterAll(async () => {
  await browser?.close();
});

describe("changing the master passphrase", () => {
  it("refuses a wrong current passphrase and a mistyped repetition, changing nothing", async () => {
    // The change lives in the account settings, out of the vault's way.
    await openSection(page, "Account");
    await changePassphrase("not the current one", NEW);
    await expect
      .poll(() => page.locator("#cp-error").innerText())
      .toBe("This passphrase does not open the vault");
    await changePassphrase(OLD, NEW, `${NEW}!`);
    await expect
      .poll(() => page.locator("#cp-error").innerText())
      .toBe("The new passphrase and its repetition differ");
    expect(await page.locator("#pending").getAttribute("data-count")).toBe("0");
  });

  it("re-wraps every entry offline and queues one update per entry", async () => {
    await context.setOffline(true);
    await expect.poll(() => page.locator("#net-state").innerText()).toBe("Offline");
    // Done, the page loads the vault afresh, which drops the old keys from memory.
    const reloaded = page.waitForEvent("load");
    await changePassphrase(OLD, NEW);
    await reloaded;
    await dashboardReady(page);
    await waitForPending(page, 3);
    expect(await entryNames(page)).toEqual(["Alpha", "Bravo", "Charlie"]);
    // The page now holds the new keys: local envelopes open, and search uses the new index key.
    await openEntry(page, "Bravo");
    await expect.poll(() => revealedField(page, "password")).toBe("pw-bravo");
    await page.getByLabel("Search").fill("carol");
    await expect.poll(() => entryNames(page)).toEqual(["Charlie"]);
    await page.getByLabel("Search").fill("");

    // The server has seen nothing yet.
    const server = await api.entries();
    expect(server.get("Alpha").wrapped_item_key).toBe(before.get("Alpha").wrapped_item_key);
  });

  it("pushes the re-wrapped keys and new blind indexes once online; encrypted data is untouched", async () => {
    await context.setOffline(false);
    await waitForPending(page, 0);
    const server = await api.entries();
    for (const [name, password] of [
      ["Alpha", "pw-alpha"],
      ["Bravo", "pw-bravo"],
      ["Charlie", "pw-charlie"],
    ] as const) {
      const e = server.get(name);
      expect(e.encrypted_data).toBe(before.get(name).encrypted_data);
      expect(e.wrapped_item_key).not.toBe(before.get(name).wrapped_item_key);
      expect((await openFor(newKeys, user.sub, e)).password).toBe(password);
      await expect(openFor(oldKeys, user.sub, e)).rejects.toBeInstanceOf(DecryptionError);
      expect(e.name_hash).not.toBe(before.get(name).name_hash);
    }
    const [newAlice] = await queryTokens(newKeys, "alice");
    const [oldAlice] = await queryTokens(oldKeys, "alice");
    expect(server.get("Alpha").search_tokens).toContain(newAlice);
    expect(server.get("Alpha").search_tokens).not.toContain(oldAlice);
  });

  it("tells another device still on the old key that it cannot open the entries", async () => {
    // Live sync may already have told the other device (the re-wrap moved the change clock); a
    // press of "Sync now" brings it either way.
    await other.getByRole("button", { name: "Sync now" }).click();
    await expect
      .poll(() => other.locator("#foreign-key").innerText())
      .toMatch(
        /^3 entries cannot be opened with this device's key\. If the master passphrase was changed on another device, sign out and sign in with the new one\.$/,
      );
    await openEntry(other, "Alpha");
    // The wrap header names the newer key version, so the device says what happened (docs/decisions/crypto.md, "Crypto: the clients hold against a malicious server").
    await expect
      .poll(() => other.locator("#toast").innerText())
      .toBe(
        "Cannot reveal: This entry is under a newer vault key (version 2): the master passphrase was changed on another device. Sign in again with the new one.",
      );
  });

  it("opens with the new passphrase on a sign-in page left open since before the change, at the new key version: the click's own read of the vault decides", async () => {
    await waiting.getByLabel("Master passphrase").fill(NEW);
    await waiting.getByRole("button", { name: "Open vault" }).click();
    await waiting.waitForURL("**/vault");
    await dashboardReady(waiting);
    await expect.poll(() => entryNames(waiting)).toEqual(["Alpha", "Bravo", "Charlie"]);
    await openEntry(waiting, "Alpha");
    await expect.poll(() => revealedField(waiting, "password")).toBe("pw-alpha");
    // What it seals now names version 2 in its wrap header: keys kept at the version the page read
    // as it loaded would seal under a version this vault has left.
    await fillEntry(waiting, {
      name: "Delta",
      website: "delta.example",
      username: "dan",
      password: "pw-delta",
    });
    await waitForPending(waiting, 0);
    await expect.poll(async () => (await api.entries()).has("Delta")).toBe(true);
    const delta = (await api.entries()).get("Delta");
    expect(wrapHeader(delta.wrapped_item_key)).toEqual({
      keyVersion: 2,
      iterations: PBKDF2_ITERATIONS,
    });
    expect((await openFor(newKeys, user.sub, delta)).password).toBe("pw-delta");
    await waiting.context().close();
  });

  it("after signing out, the old passphrase is refused and the new one opens the vault", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    expect((await localState(page)).metadata).toBe(0);

    await signInWith(OLD);
    await expect
      .poll(() => page.getByRole("alert").innerText())
      .toBe("This passphrase does not open the vault");

    await page.getByLabel("Master passphrase").fill(NEW);
    await page.getByRole("button", { name: "Open vault" }).click();
    await page.waitForURL("**/vault");
    await dashboardReady(page);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha", "Bravo", "Charlie", "Delta"]);
    await openEntry(page, "Charlie");
    await expect.poll(() => revealedField(page, "password")).toBe("pw-charlie");
    expect(await page.locator("#foreign-key").isHidden()).toBe(true);
  });
});
