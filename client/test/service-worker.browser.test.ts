import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { deriveVaultKeys } from "../../core/crypto/crypto";
import { apiAs, openFor, sealFor } from "./support/api";
import {
  dashboardReady,
  fillEntry,
  launch,
  localState,
  newUser,
  openEntry,
  signInThroughPage,
  waitForPending,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";

const PASSPHRASE = "service worker passphrase";
const base = server().baseUrl;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;

beforeAll(async () => {
  user = await newUser("sw");
  browser = await launch();
  context = await browser.newContext({ baseURL: base });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

const cacheNames = (p: Page) => p.evaluate(() => caches.keys());

describe("service worker", () => {
  it("pre-caches /dashboard and /offline, activates at once, claims the page and drops old app caches", async () => {
    // A page without scripts: nothing registers the worker yet. Leave caches of an older version.
    await page.goto("/no-such-page");
    await page.evaluate(async () => {
      for (const name of ["app-shell-v0", "app-sync-v0", "app-extra-v9", "unrelated-cache"])
        await (await caches.open(name)).put("/x", new Response("old"));
    });
    await page.goto("/");
    const controlled = await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller)
        await new Promise((r) =>
          navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }),
        );
      return navigator.serviceWorker.controller?.scriptURL;
    });
    // Claimed without a reload: skipWaiting and clients.claim.
    expect(controlled).toBe(`${base}/sw.js`);
    await expect
      .poll(async () => (await cacheNames(page)).sort())
      .toEqual(["app-shell-v1", "unrelated-cache"]);
    const shell = (await localState(page)).caches["app-shell-v1"];
    expect(shell).toEqual(expect.arrayContaining(["/dashboard", "/offline"]));
    expect(shell.some((p) => /^\/assets\/dashboard-\w+\.js$/.test(p))).toBe(true);
    // The large bundles no start needs wait until a vault has opened (the next test).
    expect(shell.filter((p) => /^\/assets\/(health|keepass)-worker-\w+\.js$/.test(p))).toEqual([]);
  });

  it("keeps at most 10 sync responses, evicting the oldest, and serves them network-first", async () => {
    await signInThroughPage(page, user.token, PASSPHRASE);
    // Once the vault has opened, the bundles the install left out are kept too: the health check
    // and the importer then open offline.
    await expect
      .poll(
        async () =>
          (await localState(page)).caches["app-shell-v1"].filter((p) =>
            /^\/assets\/(health|keepass)-worker-\w+\.js$/.test(p),
          ).length,
        { timeout: 30_000 },
      )
      .toBe(2);
    const sinces = Array.from({ length: 12 }, (_, i) =>
      new Date(Date.now() - (12 - i) * 60_000).toISOString(),
    );
    const statuses = await page.evaluate(async (list) => {
      const out: number[] = [];
      for (const s of list)
        out.push((await fetch(`/api/passwords/sync?since=${encodeURIComponent(s)}`)).status);
      return out;
    }, sinces);
    expect(statuses).toEqual(Array(12).fill(200));
    const cached = (await localState(page)).caches["app-sync-v1"];
    expect(cached).toHaveLength(10);
    expect(cached).not.toContain(`/api/passwords/sync?since=${encodeURIComponent(sinces[0])}`);
    expect(cached).not.toContain(`/api/passwords/sync?since=${encodeURIComponent(sinces[1])}`);
    expect(cached).toContain(`/api/passwords/sync?since=${encodeURIComponent(sinces[11])}`);

    await context.setOffline(true);
    try {
      const fromCache = await page.evaluate(async (s) => {
        const r = await fetch(`/api/passwords/sync?since=${encodeURIComponent(s)}`);
        return { status: r.status, body: (await r.json()) as { changes: unknown[] } };
      }, sinces[11]);
      expect(fromCache.status).toBe(200);
      expect(Array.isArray(fromCache.body.changes)).toBe(true);
      // Other API reads are never cached: offline they get the 503 body.
      const csrf = await page.evaluate(async () => {
        const r = await fetch("/api/auth/csrf-token");
        return { status: r.status, body: await r.json() };
      });
      expect(csrf).toEqual({
        status: 503,
        body: { error: "offline", code: "SERVICE_UNAVAILABLE", status: 503 },
      });
    } finally {
      await context.setOffline(false);
    }
  });

  it("falls back to /offline for a page that was never cached, which returns to the vault when online", async () => {
    await context.setOffline(true);
    try {
      await page.goto("/never-visited");
      expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("You are offline");
    } finally {
      await context.setOffline(false);
    }
    await page.waitForURL((u) => u.pathname === "/vault");
    await dashboardReady(page);
  });

  it("pushes the queue from the worker on a vault-sync background sync, with a CSRF token, without the page", async () => {
    const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
    await fillEntry(page, {
      name: "Contested",
      website: "contested.example",
      username: "cody",
      password: "pw-contested-1",
    });
    await waitForPending(page, 0);
    await context.setOffline(true);
    await fillEntry(page, {
      name: "Queued offline",
      website: "queued.example",
      username: "quinn",
      password: "pw-queued",
    });
    await openEntry(page, "Contested");
    await page.getByRole("button", { name: "Edit Contested" }).click();
    await expect.poll(() => page.getByLabel("Username", { exact: true }).inputValue()).toBe("cody");
    await fillEntry(page, { name: "Contested locally", password: "pw-contested-local" });
    await waitForPending(page, 2);

    // Meanwhile another device renames the entry: the server's version is the newer one.
    const api = await apiAs(base, user.token);
    const contested = (await api.entries()).get("Contested");
    const env = await sealFor(keys, user.sub, contested, {
      username: "cody",
      password: "pw-contested-server",
    });
    expect(
      (await api.patch(`/api/passwords/${contested.id}`, { name: "Contested on server", ...env }))
        .status,
    ).toBe(200);
    expect((await api.entries()).has("Queued offline")).toBe(false);

    // Close the vault (no page-side sync, no pull can run), reconnect, and watch from a blank page.
    // Chromium may fire the registered sync by itself on reconnecting; the explicit dispatch below
    // makes the test independent of when it does.
    await page.close();
    await context.setOffline(false);
    page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const registrationId = await new Promise<string>((resolve) => {
      cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        (ev: {
          registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[];
        }) => {
          const reg = ev.registrations.find((r) => r.scopeURL === `${base}/` && !r.isDeleted);
          if (reg) resolve(reg.registrationId);
        },
      );
      void cdp.send("ServiceWorker.enable");
    });
    await cdp.send("ServiceWorker.dispatchSyncEvent", {
      origin: base,
      registrationId,
      tag: "vault-sync",
      lastChance: false,
    });

    await expect.poll(async () => (await api.entries()).has("Queued offline")).toBe(true);
    const server = await api.entries();
    expect((await openFor(keys, user.sub, server.get("Queued offline"))).password).toBe(
      "pw-queued",
    );
    expect((await openFor(keys, user.sub, server.get("Contested on server"))).password).toBe(
      "pw-contested-server",
    );
    expect(server.has("Contested locally")).toBe(false);
    // Both results left the queue; the conflicted entry took the server's version locally (no pull ran).
    await page.goto("/no-such-page");
    await expect.poll(async () => (await localState(page)).pending).toBe(0);
    expect((await localState(page)).names).toEqual(["Contested on server", "Queued offline"]);
    await cdp.detach();
  });
});
