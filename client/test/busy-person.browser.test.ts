import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, newUser, signInThroughPage, type Browser, type Page } from "./support/browser";
import { entryRow } from "./support/browser";
import { personContext } from "./support/journey";
import { seedEntries } from "./support/seed";

// A busy person: two tabs of one browser, a quick tour of the sections in each. What reaches the
// server is counted per route (a request the service worker passed on is counted once, as the
// server sees it): the whole tour must fit in half of each per-user budget of the spec's Limits
// table, so a second browser or a phone beside it fits too. None of it may be refused, and no
// page may show a raw error code. Then the server refuses (429) for a while: the page stays quiet
// and catches up once it answers again.
const PASSPHRASE = "busy person passphrase 1";
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const TOUR = [
  "/vault",
  "/notifications",
  "/sharing",
  "/devices",
  "/settings",
  "/security",
  "/links",
  "/identities",
  "/emergency",
];

/** The spec's per-user limits per 60 seconds (Limits table) for the routes a tour reads. */
const BUDGETS: [RegExp, number][] = [
  [/^GET \/api\/passwords\/sync$/, 60],
  [/^POST \/api\/passwords\/sync$/, 30],
  [/^GET \/api\/sharing$/, 30],
  [/^(POST|PATCH|DELETE) \/api\/devices/, 30],
];
const GENERAL = 100;
/** Anything that reads as a status code or an error code, where a person would see it. */
const RAW_CODE = /\b(4\d\d|5\d\d)\b|RATE_LIMITED|INTERNAL_ERROR|UNAUTHORIZED|Too many requests/;

const routeOf = (method: string, url: string) =>
  `${method} ${new URL(url).pathname.replace(/[0-9a-f-]{20,}/g, ":id")}`;

async function tour(p: Page) {
  for (const path of TOUR) {
    await p.goto(path);
    await p.locator("body[data-ready=true]").waitFor({ timeout: 20_000 });
    await p.locator("#app-main h1").first().waitFor();
    expect(await p.locator("body").innerText()).not.toMatch(RAW_CODE);
  }
}

describe("a busy person in two tabs", () => {
  it("tours the sections in two tabs within the per-user budgets, no refusal, no raw code", {
    timeout: 180_000,
  }, async () => {
    const user = await newUser("busy");
    const { context, page: a } = await personContext(browser);
    const reached = new Map<string, number>();
    const at: { key: string; t: number }[] = [];
    const refused: string[] = [];
    await signInThroughPage(a, user.token, PASSPHRASE);
    context.on("response", (r) => {
      if (!new URL(r.url()).pathname.startsWith("/api/") || r.fromServiceWorker()) return;
      const key = routeOf(r.request().method(), r.url());
      reached.set(key, (reached.get(key) ?? 0) + 1);
      at.push({ key, t: Date.now() });
      if (r.status() === 429) refused.push(key);
    });
    const b = await context.newPage();
    // Live sync's connection per page opened: a budget of its own (rule sync_live, 120 a minute).
    let sockets = 0;
    for (const p of [a, b]) p.on("websocket", () => sockets++);
    const started = Date.now();
    await Promise.all([tour(a), tour(b)]);
    const seconds = (Date.now() - started) / 1000;
    const total = [...reached.values()].reduce((s, n) => s + n, 0);
    console.log(
      `two tabs, ${TOUR.length} pages each, ${seconds.toFixed(1)} s; requests that reached the server:\n${[
        ...reached,
      ]
        .sort((x, y) => y[1] - x[1])
        .map(([k, n]) => `${String(n).padStart(4)} ${k}`)
        .join("\n")}\n${String(total).padStart(4)} in all, and ${sockets} live-sync connections`,
    );
    expect(refused).toEqual([]);
    // The most any 60-second window saw (the whole tour when it took less than a minute).
    const busiest = (match: (key: string) => boolean) => {
      const times = at.filter((x) => match(x.key)).map((x) => x.t);
      return Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + 60_000).length));
    };
    expect(busiest(() => true)).toBeLessThanOrEqual(GENERAL / 2);
    for (const [pattern, limit] of BUDGETS)
      expect(
        busiest((k) => pattern.test(k)),
        String(pattern),
      ).toBeLessThanOrEqual(limit / 2);
    expect(sockets).toBeLessThanOrEqual(120 / 2);
    for (const p of [a, b]) expect(await p.locator("#net-state").innerText()).toBe("Online");
    await context.close();
  });

  it("stays quiet while the server refuses with 429, honours Retry-After, and catches up after", {
    timeout: 120_000,
  }, async () => {
    const user = await newUser("busy429");
    const { context, page } = await personContext(browser);
    await signInThroughPage(page, user.token, PASSPHRASE);
    let refusing = true;
    const refusedAt: number[] = [];
    await context.route(
      (u) => u.pathname.startsWith("/api/") && !u.pathname.startsWith("/api/auth/"),
      async (route) => {
        if (!refusing || route.request().method() !== "GET") return route.fallback();
        if (new URL(route.request().url()).pathname === "/api/passwords/sync")
          refusedAt.push(Date.now());
        await route.fulfill({
          status: 429,
          headers: { "retry-after": "2", "content-type": "application/json" },
          body: JSON.stringify({ error: "Too many requests", code: "RATE_LIMITED", status: 429 }),
        });
      },
    );
    await seedEntries(user, PASSPHRASE, [{ name: "Arrived while refused", password: "pw-1" }]);
    await page.getByRole("button", { name: "Sync now" }).click();
    // A tour meanwhile: every section quiet (no code, no "failed"), the header still online.
    for (const path of ["/notifications", "/devices", "/sharing", "/vault"]) {
      await page.goto(path);
      await page.locator("body[data-ready=true]").waitFor({ timeout: 20_000 });
      await page.waitForTimeout(500);
      expect(await page.locator("body").innerText()).not.toMatch(RAW_CODE);
      expect(await page.locator("#net-state").innerText()).not.toMatch(/fail/i);
    }
    await expect.poll(() => refusedAt.length).toBeGreaterThanOrEqual(2);
    // Asked again no sooner than the Retry-After said (per page; a new page starts its own run).
    const gaps = refusedAt.slice(1).map((t, i) => t - refusedAt[i]!);
    expect(gaps.filter((g) => g < 1_000)).toEqual([]);
    refusing = false;
    await entryRow(page, "Arrived while refused").first().waitFor({ timeout: 30_000 });
    expect(await page.locator("#net-state").innerText()).toBe("Online");
    expect(await page.locator("body").innerText()).not.toMatch(RAW_CODE);
    await context.close();
  });
});
