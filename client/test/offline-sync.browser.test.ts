import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { deriveVaultKeys, queryTokens, type VaultKeys } from "../../core/crypto/crypto";
import { apiAs, openFor, sealFor } from "./support/api";
import {
  dashboardReady,
  entryNames,
  fillEntry,
  launch,
  localState,
  newUser,
  openEntry,
  revealedField,
  screenshot,
  signInThroughPage,
  signInWithProvider,
  waitForPending,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";

// One user's day with the vault, in order: each step builds on the state the previous one left.
const PASSPHRASE = "correct horse battery staple";
const base = server().baseUrl;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;
let api: Awaited<ReturnType<typeof apiAs>>;
let keys: VaultKeys;

const open = (e: {
  id: string;
  website: string | null;
  url: string | null;
  wrapped_item_key: string;
  encrypted_data: string;
}) => openFor(keys, user.sub, e);

beforeAll(async () => {
  user = await newUser("browser");
  api = await apiAs(base, user.token);
  keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  browser = await launch();
  context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  page = await context.newPage();
  page.on("dialog", (d) => void d.accept());
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") console.error(`page console: ${m.text()}`);
  });
});

afterAll(async () => {
  await browser?.close();
});

describe("web client, online and offline", () => {
  it("signs in and creates entries that reach the server as V3 envelopes with blind indexes", async () => {
    await signInThroughPage(page, user.token, PASSPHRASE);
    await fillEntry(page, {
      name: "Alpha",
      website: "alpha.example",
      username: "alice",
      password: "pw-alpha-1",
      notes: "first",
    });
    await fillEntry(page, {
      name: "Bravo",
      website: "https://www.bravo.example/login",
      username: "bob",
      password: "pw-bravo-1",
    });
    await fillEntry(page, {
      name: "Delta",
      website: "delta.example",
      username: "dora",
      password: "pw-delta-1",
    });
    await expect.poll(() => entryNames(page)).toEqual(["Alpha", "Bravo", "Delta"]);
    await waitForPending(page, 0);
    await expect.poll(() => page.locator("#net-state").getAttribute("data-state")).toBe("online");

    const server = await api.entries();
    expect([...server.keys()].sort()).toEqual(["Alpha", "Bravo", "Delta"]);
    const alpha = server.get("Alpha");
    expect(alpha).toMatchObject({
      encryption_version: 3,
      username: null,
      password: null,
      notes: null,
      category: null,
      website: "alpha.example",
    });
    expect(alpha.name_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(alpha.username_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(alpha.domain_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await open(alpha)).toMatchObject({
      username: "alice",
      password: "pw-alpha-1",
      notes: "first",
    });
    // The server's search tokens are the page's blind index: a Node-side query hash finds them.
    const [aliceToken] = await queryTokens(keys, "alice");
    expect(alpha.search_tokens).toContain(aliceToken);
    expect(server.get("Bravo").website).toBe("bravo.example");
    await screenshot(page, "dashboard-online.png");
  });

  it("searches by blind index, reveals through the audited endpoint and copies a password", async () => {
    await page.getByLabel("Search").fill("ali");
    await expect.poll(() => entryNames(page)).toEqual(["Alpha"]);
    await page.getByLabel("Search").fill("bravo");
    await expect.poll(() => entryNames(page)).toEqual(["Bravo"]);
    await page.getByLabel("Search").fill("nothing-like-this");
    await expect.poll(() => entryNames(page)).toEqual([]);
    await page.getByLabel("Search").fill("");
    await expect.poll(() => entryNames(page)).toEqual(["Alpha", "Bravo", "Delta"]);

    const revealed = page.waitForResponse(
      (r) => r.request().method() === "POST" && /\/api\/passwords\/[^/]+\/reveal$/.test(r.url()),
    );
    await openEntry(page, "Alpha");
    expect((await revealed).status()).toBe(200);
    await expect.poll(() => revealedField(page, "password")).toBe("pw-alpha-1");
    await page.locator("#hide-revealed").click();
    expect(await page.locator("#revealed").isHidden()).toBe(true);

    await openEntry(page, "Bravo");
    await page.getByRole("button", { name: "Copy password", exact: true }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("pw-bravo-1");
  });

  it("queues edits, a create and a delete made offline, and shows them as pending", async () => {
    await context.setOffline(true);
    await expect.poll(() => page.locator("#net-state").innerText()).toBe("Offline");

    await openEntry(page, "Bravo");
    await page.getByRole("button", { name: "Edit Bravo" }).click();
    await expect
      .poll(() => page.getByLabel("Password", { exact: true }).inputValue())
      .toBe("pw-bravo-1");
    await fillEntry(page, { name: "Bravo", password: "pw-bravo-2" });
    await fillEntry(page, {
      name: "Charlie",
      website: "charlie.example",
      username: "carol",
      password: "pw-charlie-1",
    });
    await openEntry(page, "Alpha");
    await page.getByRole("button", { name: "Edit Alpha" }).click();
    await expect
      .poll(() => page.getByLabel("Username", { exact: true }).inputValue())
      .toBe("alice");
    await fillEntry(page, { name: "Alpha local", password: "pw-alpha-local" });
    await openEntry(page, "Delta");
    await page.getByRole("button", { name: "Delete Delta" }).click();

    await waitForPending(page, 4);
    expect(await page.locator("#pending").innerText()).toBe("4 pending changes");
    // The list and the status render one after the other; the person sees the list settle.
    await expect.poll(() => entryNames(page)).toEqual(["Alpha local", "Bravo", "Charlie"]);
    await screenshot(page, "dashboard-offline-pending.png");

    // Nothing reached the server.
    const server = await api.entries();
    expect([...server.keys()].sort()).toEqual(["Alpha", "Bravo", "Delta"]);
    expect((await open(server.get("Bravo"))).password).toBe("pw-bravo-1");
  });

  it("still shows the vault after a reload while offline (service worker and IndexedDB)", async () => {
    await page.reload();
    await dashboardReady(page);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha local", "Bravo", "Charlie"]);
    await waitForPending(page, 4);
    expect(await page.locator("#net-state").innerText()).toBe("Offline");
    await openEntry(page, "Charlie");
    await expect.poll(() => revealedField(page, "password")).toBe("pw-charlie-1");
    await page.locator("#hide-revealed").click();
  });

  it("answers an uncached sync GET offline with the 503 offline error body", async () => {
    const res = await page.evaluate(async () => {
      const r = await fetch(
        `/api/passwords/sync?since=${encodeURIComponent(new Date().toISOString())}`,
      );
      return { status: r.status, type: r.headers.get("content-type"), body: await r.json() };
    });
    expect(res).toEqual({
      status: 503,
      type: "application/json",
      body: { error: "offline", code: "SERVICE_UNAVAILABLE", status: 503 },
    });
  });

  it("pushes the queue when back online; a newer server change wins the conflict", async () => {
    // Another device changes Alpha after the offline edit: the server's version is newer.
    const alpha = (await api.entries()).get("Alpha");
    const patched = await api.patch(`/api/passwords/${alpha.id}`, {
      name: "Alpha server",
      ...(await sealFor(keys, user.sub, alpha, { username: "alice", password: "pw-alpha-server" })),
    });
    expect(patched.status).toBe(200);

    await context.setOffline(false);
    await waitForPending(page, 0);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha server", "Bravo", "Charlie"]);
    await expect.poll(() => page.locator("#net-state").innerText()).toBe("Online");

    const server = await api.entries();
    expect([...server.keys()].sort()).toEqual(["Alpha server", "Bravo", "Charlie"]);
    expect((await open(server.get("Bravo"))).password).toBe("pw-bravo-2");
    expect(await open(server.get("Charlie"))).toMatchObject({
      username: "carol",
      password: "pw-charlie-1",
    });
    expect((await open(server.get("Alpha server"))).password).toBe("pw-alpha-server");
    const pulled = await api.get("/api/passwords/sync");
    expect(pulled.body.changes.some((c: { name?: string }) => c.name === "Delta")).toBe(false);

    await openEntry(page, "Alpha server");
    await expect.poll(() => revealedField(page, "password")).toBe("pw-alpha-server");
    await page.locator("#hide-revealed").click();
    await screenshot(page, "dashboard-synced.png");
  });

  it("logout clears the local store and the sync cache", async () => {
    const before = await localState(page);
    expect(before.entries).toBe(3);
    expect(before.caches["app-sync-v1"]?.length).toBeGreaterThan(0);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    const after = await localState(page);
    expect({ entries: after.entries, pending: after.pending, metadata: after.metadata }).toEqual({
      entries: 0,
      pending: 0,
      metadata: 0,
    });
    expect(after.caches["app-sync-v1"]).toBeUndefined();
    expect(await page.evaluate(() => document.cookie.includes("access_token="))).toBe(false);
    // The dashboard without a session goes back to sign-in.
    await page.goto("/dashboard");
    await page.waitForURL((u) => u.pathname === "/");
  });

  it("refuses a wrong passphrase, and a new sign-in rebuilds the vault from a full pull", async () => {
    await signInWithProvider(page, user.token);
    await page.getByLabel("Master passphrase").fill("not the passphrase");
    await page.getByRole("button", { name: "Open vault" }).click();
    await expect
      .poll(() => page.getByRole("alert").innerText())
      .toBe("This passphrase does not open the vault");
    expect(new URL(page.url()).pathname).toBe("/");

    await page.getByLabel("Master passphrase").fill(PASSPHRASE);
    await page.getByRole("button", { name: "Open vault" }).click();
    await page.waitForURL("**/vault");
    await dashboardReady(page);
    await expect.poll(() => entryNames(page)).toEqual(["Alpha server", "Bravo", "Charlie"]);
    // Search works on entries that arrived by sync (tokens computed after decryption).
    await page.getByLabel("Search").fill("carol");
    await expect.poll(() => entryNames(page)).toEqual(["Charlie"]);
  });
});
