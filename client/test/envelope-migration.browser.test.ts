import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import {
  blindIndexes,
  deriveVaultKeys,
  encryptLegacyEntry,
  type VaultKeys,
} from "../../core/crypto/crypto";
import { bindsScheme, isBound, placeOf } from "../../core/crypto/envelope";
import { sealEntryV2 } from "./support/envelope-v2";
import { apiAs, openFor } from "./support/api";
import {
  launch,
  newUser,
  openEntry,
  revealedField,
  signInThroughPage,
  waitForPending,
  type Browser,
  type Page,
} from "./support/browser";
import {
  fullPull,
  isSyncPull,
  startMaliciousServer,
  type MaliciousServer,
} from "./support/malicious-server";

// docs/decisions/crypto.md, "Crypto: the clients hold against a malicious server": entries sealed before envelopes were bound (version 1) migrate in the browser, and once
// the vault is fully bound this device refuses a version-1 blob the server tries to bring back.
const PASSPHRASE = "migrating passphrase";
const base = server().baseUrl;
let browser: Browser;
let evil: MaliciousServer;
let page: Page;
let keys: VaultKeys;
let user: Awaited<ReturnType<typeof newUser>>;
let api: Awaited<ReturnType<typeof apiAs>>;
type Listed = {
  id: string;
  name: string;
  website: string | null;
  url: string | null;
  wrapped_item_key: string;
  encrypted_data: string;
};
const legacy = new Map<string, Listed>();

/** An entry as a version-1 client pushed it: unbound envelope, client-chosen id. */
async function plantLegacy(name: string, website: string, password: string) {
  const envelope = await encryptLegacyEntry(keys, {
    username: "lee",
    password,
    notes: "",
    category: "",
    totp: "",
  });
  const idx = await blindIndexes(keys, { name, website, username: "lee" });
  const id = crypto.randomUUID();
  const data = {
    name,
    website,
    url: null,
    tags: [],
    ...envelope,
    encryption_version: 3,
    name_hash: idx.name_hash,
    username_hash: idx.username_hash,
    domain_hash: idx.domain_hash,
    search_tokens: idx.search_tokens,
  };
  const res = await api.post("/api/passwords/sync", {
    mutations: [{ action: "create", id, data, clientUpdatedAt: new Date().toISOString() }],
  });
  expect(res.body.results[0].status).toBe("applied");
  legacy.set(name, { id, name, website, url: null, ...envelope });
}

const SHOP = {
  name: "Old Shop",
  website: "shop.example",
  url: "https://shop.example/login",
  password: "shop-v2-pw",
};
let shopId = "";

/** An entry as a version-2 client pushed it: bound to its host, not its scheme, no address in the payload. */
async function plantVersion2() {
  shopId = crypto.randomUUID();
  const envelope = await sealEntryV2(
    keys,
    placeOf(user.sub, { id: shopId, website: SHOP.website, url: SHOP.url }),
    { username: "lee", password: SHOP.password, notes: "", category: "", totp: "" },
  );
  const idx = await blindIndexes(keys, { name: SHOP.name, website: SHOP.website, username: "lee" });
  const data = {
    name: SHOP.name,
    website: SHOP.website,
    url: SHOP.url,
    tags: [],
    ...envelope,
    encryption_version: 3,
    name_hash: idx.name_hash,
    username_hash: idx.username_hash,
    domain_hash: idx.domain_hash,
    search_tokens: idx.search_tokens,
  };
  const res = await api.post("/api/passwords/sync", {
    mutations: [{ action: "create", id: shopId, data, clientUpdatedAt: new Date().toISOString() }],
  });
  expect(res.body.results[0].status).toBe("applied");
}

const boundFlag = (p: Page) =>
  p.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open("vault-trust");
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const floors = await new Promise<{ bound: boolean }[]>((resolve, reject) => {
      const r = db.transaction("floors").objectStore("floors").getAll();
      r.onsuccess = () => resolve(r.result as { bound: boolean }[]);
      r.onerror = () => reject(r.error);
    });
    db.close();
    return floors.some((f) => f.bound);
  });

beforeAll(async () => {
  user = await newUser("migrate");
  api = await apiAs(base, user.token);
  keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await plantLegacy("Old Bank", "bank.example", "legacy-bank-pw");
  await plantLegacy("Old Forum", "forum.example", "legacy-forum-pw");
  await plantVersion2();
  evil = await startMaliciousServer(base);
  browser = await launch();
  page = await (await browser.newContext({ baseURL: evil.base })).newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
});

afterAll(async () => {
  await browser?.close();
  await evil?.stop();
});

describe("migrating unbound entries", () => {
  it("signs in to a vault of version-1 entries, re-seals each bound to its place and syncs the updates", async () => {
    await signInThroughPage(page, user.token, PASSPHRASE);
    // The first pull brings the entries; the page re-seals them and pushes the updates at once.
    await expect
      .poll(
        async () => [...((await api.entries()) as Map<string, Listed>).values()].every(isBound),
        { timeout: 20_000 },
      )
      .toBe(true);
    await waitForPending(page, 0);
    const server = (await api.entries()) as Map<string, Listed>;
    for (const [name, password] of [
      ["Old Bank", "legacy-bank-pw"],
      ["Old Forum", "legacy-forum-pw"],
    ] as const) {
      const e = server.get(name)!;
      expect(e.id).toBe(legacy.get(name)!.id);
      expect(isBound(e)).toBe(true);
      expect((await openFor(keys, user.sub, e)).password).toBe(password);
    }
    await openEntry(page, "Old Bank");
    await expect.poll(() => revealedField(page, "password")).toBe("legacy-bank-pw");
    await page.locator("#hide-revealed").click();
    expect(await page.locator("#foreign-key").isHidden()).toBe(true);
  });

  it("then refuses a version-1 blob the server brings back in another entry's place", async () => {
    // Fully bound once synced with nothing left to migrate.
    await expect.poll(() => boundFlag(page)).toBe(true);
    const bank = legacy.get("Old Bank")!;
    const forumId = legacy.get("Old Forum")!.id;
    evil.rewrite({
      when: isSyncPull,
      url: fullPull,
      json: (body: { changes: Listed[] }) => ({
        ...body,
        changes: body.changes.map((e) =>
          e.id === forumId
            ? { ...e, wrapped_item_key: bank.wrapped_item_key, encrypted_data: bank.encrypted_data }
            : e,
        ),
        fullSyncRequired: true,
      }),
    });
    evil.rewrite({
      when: (r) => r.method === "POST" && r.path === `/api/passwords/${forumId}/reveal`,
      json: () => ({
        envelope: {
          wrappedItemKey: bank.wrapped_item_key,
          encryptedData: bank.encrypted_data,
          version: 3,
        },
      }),
    });
    try {
      const pulled = page.waitForResponse(
        (r) =>
          new URL(r.url()).pathname === "/api/passwords/sync" && r.request().method() === "GET",
      );
      await page.getByRole("button", { name: "Sync now" }).click();
      await pulled;
      await expect
        .poll(() => page.locator("#foreign-key").innerText())
        .toBe(
          "1 entry not shown. This entry came in the old, unbound format, which this vault no longer uses on this device. It is not shown.",
        );
      await openEntry(page, "Old Forum");
      await expect
        .poll(() => page.locator("#toast").innerText())
        .toMatch(/^Cannot reveal: This entry came in the old, unbound format/);
      expect(await page.content()).not.toContain("legacy-bank-pw");
      // Nothing re-sealed from the planted blob.
      expect(await page.locator("#pending").getAttribute("data-count")).toBe("0");
    } finally {
      evil.honest();
    }
  });

  it("opens a version-2 entry, seals it as version 3 at its next edit; a server that then turns its https into http gets the integrity error", async () => {
    const shopRow = async () => ((await api.entries()) as Map<string, Listed>).get(SHOP.name)!;
    // Read as it is: opening a version-2 entry re-seals nothing.
    await openEntry(page, SHOP.name);
    await expect.poll(() => revealedField(page, "password")).toBe(SHOP.password);
    expect(bindsScheme(await shopRow())).toBe(false);
    await page.getByRole("button", { name: `Edit ${SHOP.name}`, exact: true }).click();
    await page.locator("#entry-dialog[open]").waitFor();
    await page.getByLabel("Username", { exact: true }).fill("lee.shop");
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator("#entry-dialog[open]").waitFor({ state: "hidden" });
    await waitForPending(page, 0);
    const sealed = await shopRow();
    expect(sealed.url).toBe(SHOP.url);
    expect(bindsScheme(sealed)).toBe(true);
    expect(await openFor(keys, user.sub, sealed)).toMatchObject({
      username: "lee.shop",
      password: SHOP.password,
    });

    evil.rewrite({
      when: isSyncPull,
      url: fullPull,
      json: (body: { changes: Listed[] }) => ({
        ...body,
        changes: body.changes.map((e) =>
          e.id === shopId ? { ...e, url: e.url!.replace("https:", "http:") } : e,
        ),
        fullSyncRequired: true,
      }),
    });
    try {
      const pulled = page.waitForResponse(
        (r) =>
          new URL(r.url()).pathname === "/api/passwords/sync" && r.request().method() === "GET",
      );
      await page.getByRole("button", { name: "Sync now" }).click();
      await pulled;
      await expect
        .poll(() => page.locator("#foreign-key").innerText())
        .toMatch(
          /^1 entry not shown\. This entry's encrypted data does not belong to this entry, account or website/,
        );
      await openEntry(page, SHOP.name);
      await expect
        .poll(() => page.locator("#toast").innerText())
        .toMatch(/^Cannot reveal: This entry's encrypted data does not belong/);
      expect(await page.content()).not.toContain(SHOP.password);
    } finally {
      evil.honest();
    }
  });
});
