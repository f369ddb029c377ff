import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blindIndexes, deriveVaultKeys } from "../../core/crypto/crypto";
import { apiAs, sealFor } from "./support/api";
import {
  entryRow,
  launch,
  newUser,
  openEntry,
  revealedField,
  screenshot,
  signInThroughPage,
  type Browser,
  type Page,
} from "./support/browser";
import { base } from "./support/journey";

// A vault of a few thousand entries on a new browser: the list shows its rows before the pass that
// opens every entry (usernames, marks, folders) has run, fills them in as it goes, and a search
// finds an entry by its username (sealed: only an opened entry knows it) whether the search comes
// before or after that entry was opened. Timing is the bench's (bench/dashboard.mjs); this asserts
// what the person sees.
const PASSPHRASE = "vault scale passphrase 1";
const COUNT = 1000;
/** A sign-in that pulls, stores and opens every entry of such a vault: minutes, not seconds, on a loaded 2-core machine. */
const LONG = 180_000;
/** The longest task the page may run during the first sync here (see the test for why this much). */
const LONGEST_TASK_MS = 1500;
/** The one entry whose username holds this word: nothing else in the vault does. */
const LATE = {
  name: "Quiet harbour",
  website: "quiet-harbour.example.test",
  username: "zephyrine@mail.example.test",
};
let browser: Browser;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;

/** Entries sealed as the web client seals them, pushed through sync 100 at a time. */
async function seed() {
  const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  const api = await apiAs(base(), user.token);
  const now = new Date().toISOString();
  for (let i = 0; i < COUNT; i += 100) {
    const mutations = await Promise.all(
      Array.from({ length: Math.min(100, COUNT - i) }, async (_, k) => {
        const n = i + k;
        // The last entry by id order and in the middle by name: opened late, listed early.
        const e =
          n === COUNT - 1
            ? LATE
            : {
                name: `Entry ${String(n).padStart(4, "0")}`,
                website: `site${n % 300}.example.test`,
                username: `user${n}@example.test`,
              };
        const id = `${String(n).padStart(8, "0")}-0000-4000-8000-000000000000`;
        const envelope = await sealFor(
          keys,
          user.sub,
          { id, website: e.website, url: null },
          { username: e.username, password: `pw-${n}` },
        );
        const idx = await blindIndexes(keys, {
          name: e.name,
          website: e.website,
          username: e.username,
        });
        const data = {
          name: e.name,
          website: e.website,
          url: null,
          tags: [],
          ...envelope,
          encryption_version: 3,
          name_hash: idx.name_hash,
          username_hash: idx.username_hash,
          domain_hash: idx.domain_hash,
          search_tokens: idx.search_tokens,
        };
        return { action: "create", id, data, clientUpdatedAt: now };
      }),
    );
    const res = await api.post("/api/passwords/sync", { mutations });
    expect(res.status).toBe(200);
    expect(res.body.results.every((r: { status: string }) => r.status === "applied")).toBe(true);
  }
}

/** What the list showed the first time it had rows: how many, and how many with a username. */
const firstRows = (p: Page) =>
  p.evaluate(
    () =>
      (window as unknown as { __firstRows?: { rows: number; withUser: number } }).__firstRows ??
      null,
  );
const heading = (p: Page) => p.locator("#entries-heading").innerText();
/**
 * Every row of the list, read by scrolling its box from top to bottom (a long list keeps only the
 * rows in view and a margin in the page): how many the list says it holds, how many distinct ids
 * and places were seen, how many showed a username, and the most rows the page held at once.
 */
const listed = (p: Page) =>
  p.evaluate(async () => {
    const list = document.getElementById("entries")!;
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const users = new Map<string, string>();
    const places = new Set<string>();
    let most = 0;
    list.scrollTop = 0;
    await frame();
    for (;;) {
      const rows = [...list.querySelectorAll<HTMLElement>("li[data-id]")];
      most = Math.max(most, rows.length);
      for (const r of rows) {
        users.set(r.dataset.id!, r.querySelector(".user")?.textContent ?? "");
        places.add(r.getAttribute("aria-posinset") ?? "");
      }
      if (list.scrollTop + list.clientHeight >= list.scrollHeight - 1) break;
      list.scrollTop += list.clientHeight;
      await frame();
    }
    const setsize = Number(list.querySelector("li[data-id]")?.getAttribute("aria-setsize"));
    return {
      rows: Number(list.dataset.rows),
      setsize,
      ids: users.size,
      places: places.size,
      withUser: [...users.values()].filter(Boolean).length,
      virtual: most < users.size,
    };
  });
const all = {
  rows: COUNT,
  setsize: COUNT,
  ids: COUNT,
  places: COUNT,
  withUser: COUNT,
  virtual: true,
};

const searchFor = (p: Page, query: string) => p.locator("#search").fill(query);

beforeAll(async () => {
  user = await newUser("vaultscale");
  await seed();
  browser = await launch();
  const context = await browser.newContext({
    baseURL: base(),
    viewport: { width: 1280, height: 900 },
  });
  // Notes the list as it first shows rows, in the task that draws them (a MutationObserver's
  // callback runs before any later task, so before any entry opened after the drawing).
  await context.addInitScript(() => {
    new MutationObserver((_, self) => {
      const rows = document.querySelectorAll("#entries li");
      if (rows.length === 0) return;
      (window as unknown as { __firstRows: unknown }).__firstRows = {
        rows: rows.length,
        withUser: [...rows].filter((r) => (r.querySelector(".user")?.textContent ?? "") !== "")
          .length,
      };
      self.disconnect();
    }).observe(document, { childList: true, subtree: true });
    // Every task over 50 ms on the vault page's main thread (Long Tasks API), and when the page
    // said it was ready (body[data-ready]): what comes after is the first sync and its pass.
    const w = window as unknown as {
      __longTasks: { start: number; duration: number }[];
      __readyAt?: number;
    };
    w.__longTasks = [];
    new PerformanceObserver((l) => {
      for (const t of l.getEntries())
        w.__longTasks.push({ start: t.startTime, duration: t.duration });
    }).observe({ type: "longtask", buffered: true });
    new MutationObserver((_, self) => {
      if (document.body?.dataset.ready !== "true") return;
      w.__readyAt = performance.now();
      self.disconnect();
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-ready"] });
  });
  page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
}, LONG);

afterAll(async () => {
  await browser?.close();
});

describe(`a vault of ${COUNT} entries on a new browser`, () => {
  it(
    "lists its rows before any entry is opened, then shows every username, each entry exactly once",
    async () => {
      await signInThroughPage(page, user.token, PASSPHRASE);
      await expect.poll(() => firstRows(page), { timeout: 60_000 }).not.toBeNull();
      const first = (await firstRows(page))!;
      expect(first.rows).toBeGreaterThan(0);
      // Drawn from names and sites alone: the pass that opens entries had not reached any of them.
      expect(first.withUser).toBe(0);
      await expect.poll(() => heading(page), { timeout: 60_000 }).toBe(`Entries (${COUNT})`);
      await expect.poll(() => listed(page), { timeout: 60_000 }).toEqual(all);
      await expect
        .poll(() => page.locator("#entries").getAttribute("data-read"), { timeout: 60_000 })
        .not.toBeNull();
      // The page stays responsive while the first sync fills it: the pull is read, parsed, sorted and
      // stored in a worker, the entries opened in another, the list merges the sorted pages, and
      // every pass over all entries after the pull runs in slices of a few milliseconds. On an idle
      // machine no task passes 50 ms (bench/dashboard.mjs measures it at 10,000 entries); on the
      // shared, loaded CI machine a slice's wall time stretches many times while the cores are taken
      // (runs here: 0, 0 and 281 ms at load about 20, 587 ms at load 29). The bound is about 2.5
      // times the worst seen: it holds under that load and fails a change that puts seconds of work
      // in one task again (as the pull parsed and stored on the page did at 10,000 entries); it does
      // not show the 50 ms line, which is the bench's to show, on an idle machine.
      const tasks = await page.evaluate(() => {
        const w = window as unknown as {
          __longTasks: { start: number; duration: number }[];
          __readyAt?: number;
        };
        const read = Number(document.getElementById("entries")!.dataset.read);
        return {
          ready: w.__readyAt ?? null,
          longest: Math.max(
            0,
            ...w.__longTasks
              .filter((t) => t.start >= (w.__readyAt ?? 0) && t.start <= read)
              .map((t) => t.duration),
          ),
        };
      });
      expect(tasks.ready).not.toBeNull();
      expect(tasks.longest).toBeLessThan(LONGEST_TASK_MS);
      // The pull was read in its worker (a build or browser without one reads it on the page).
      expect(page.workers().map((w) => new URL(w.url()).pathname)).toContainEqual(
        expect.stringMatching(/^\/assets\/pull-worker-\w+\.js$/),
      );
      console.log(
        `first sync of ${COUNT}: longest task on the page ${Math.round(tasks.longest)} ms`,
      );
      // The last row by name: in the page once the list is scrolled to its end, with its username.
      await page.locator("#entries").evaluate((l) => (l.scrollTop = l.scrollHeight));
      await expect
        .poll(() => entryRow(page, LATE.name).locator(".user").textContent())
        .toBe(LATE.username);
      expect(await entryRow(page, LATE.name).getAttribute("aria-posinset")).toBe(String(COUNT));
      // The keyboard walks the whole list, not only the rows in the page: End reaches the last row,
      // arrows go on past the margin drawn around it, and the focused row is always the one in view.
      const focused = () =>
        page.evaluate(
          () => document.activeElement?.closest("li")?.getAttribute("aria-posinset") ?? null,
        );
      await page.locator("#search").focus();
      await page.keyboard.press("ArrowDown");
      expect(await focused()).toBe("1");
      await page.keyboard.press("End");
      expect(await focused()).toBe(String(COUNT));
      for (let i = 0; i < 45; i++) await page.keyboard.press("ArrowUp");
      expect(await focused()).toBe(String(COUNT - 45));
      await page.keyboard.press("Home");
      expect(await focused()).toBe("1");
      await page.keyboard.press("ArrowUp");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("search");
      await screenshot(page, `screenshots/vault-scale-${COUNT}-1280.png`);
    },
    LONG,
  );

  it(
    "finds an entry by its sealed username, typed before the entry was opened on this page",
    async () => {
      // A reload starts the pass again: the search is typed as soon as the first rows show, while
      // most entries (this one last) are still unopened and match on their stored blind index.
      await page.reload();
      await page.locator("#entries li").first().waitFor();
      await searchFor(page, "zephyrine");
      await expect
        .poll(() => heading(page), { timeout: 60_000 })
        .toBe(`Entries matching “zephyrine” (1)`);
      expect(await page.locator("#entries li .name").allInnerTexts()).toEqual([LATE.name]);
      // Once every entry is opened the search runs in memory: the same answer, and a word beginning finds it too.
      await expect
        .poll(() => page.locator("#entries").getAttribute("data-read"), { timeout: 60_000 })
        .not.toBeNull();
      await searchFor(page, "zephyr");
      await expect.poll(() => heading(page)).toBe(`Entries matching “zephyr” (1)`);
      await searchFor(page, "quiet harbour");
      await expect
        .poll(() => page.locator("#entries li .name").allInnerTexts())
        .toEqual([LATE.name]);
      // A word the entry holds only in the middle of a word is no match (whole words and beginnings).
      await searchFor(page, "phyrine");
      await expect.poll(() => heading(page)).toBe(`Entries matching “phyrine” (0)`);
      await searchFor(page, "site7 example");
      await expect
        .poll(() => heading(page))
        .toBe(
          `Entries matching “site7 example” (${[...Array(COUNT - 1).keys()].filter((n) => String(n % 300).startsWith("7")).length})`,
        );
      await searchFor(page, "zephyrine");
      await page.keyboard.press("Enter");
      await page.locator("#revealed[data-ready=true]").waitFor();
      expect(await revealedField(page, "username")).toBe(LATE.username);
    },
    LONG,
  );

  it(
    "resumes where the connection dropped part-way through the full pull, sends less than a restart would, and ends with every entry exactly once",
    async () => {
      const context = await browser.newContext({
        baseURL: base(),
        viewport: { width: 1280, height: 900 },
      });
      const pulls: { search: string; bytes: number; cut: number | null }[] = [];
      await context.route("**/api/passwords/sync*", async (route) => {
        if (route.request().method() !== "GET") return route.continue();
        const res = await route.fetch();
        const body = await res.text();
        // The first pull as a dropped connection leaves it: the first half of the answer, no end.
        const cut = pulls.length === 0 ? Math.floor(body.length / 2) : null;
        pulls.push({ search: new URL(route.request().url()).search, bytes: body.length, cut });
        await route.fulfill({
          status: res.status(),
          contentType: res.headers()["content-type"],
          body: cut === null ? body : body.slice(0, cut),
        });
      });
      const p = await context.newPage();
      await signInThroughPage(p, user.token, PASSPHRASE);
      await expect.poll(() => heading(p), { timeout: 90_000 }).toBe(`Entries (${COUNT})`);
      await expect.poll(() => listed(p), { timeout: 90_000 }).toEqual(all);
      expect(pulls.length).toBeGreaterThanOrEqual(2);
      const [first, second] = pulls as [(typeof pulls)[0], (typeof pulls)[0]];
      // The retry goes on from the last page stored, and what it sends is the rest, not the whole
      // again: what came before the cut is sent again only from the last whole page, so at most one
      // page (about 256 KiB, docs/scale.md, "Full pull") more than what the cut left unsent.
      expect(second.search).toMatch(/[?&]resume=/);
      expect(second.bytes).toBeLessThan(first.bytes);
      expect(second.bytes - (first.bytes - first.cut!)).toBeLessThan(320 * 1024);
      // Resumed within the engine's short retry, never shown as a failed sync.
      await expect.poll(() => p.locator("#net-state").innerText()).toBe("Online");
      // The store holds every entry once and no position is left behind.
      const store = await p.evaluate(
        () =>
          new Promise<{ entries: number; resume: unknown }>((resolve, reject) => {
            const open = indexedDB.open("app-sync");
            open.onerror = () => reject(open.error);
            open.onsuccess = () => {
              const tx = open.result.transaction(["entries", "metadata"]);
              const count = tx.objectStore("entries").count();
              const keys = tx.objectStore("metadata").getAllKeys();
              tx.oncomplete = () =>
                resolve({
                  entries: count.result,
                  resume: (keys.result as string[]).filter((k) => String(k).startsWith("resume:"))
                    .length,
                });
            };
          }),
      );
      expect(store).toEqual({ entries: COUNT, resume: 0 });
      console.log(
        `dropped full pull of ${COUNT}: ${first.bytes} bytes whole, cut at ${first.cut}, resumed with ${second.bytes}`,
      );
      await context.close();
    },
    LONG,
  );

  it(
    "lists the first page of a first sync while the rest is held, keeps it through a dropped connection, and ends with every entry once",
    async () => {
      const context = await browser.newContext({
        baseURL: base(),
        viewport: { width: 1280, height: 900 },
      });
      // A slow network, until the test releases it: every pull's answer ends after its first two
      // lines (the pull's facts and a page), as a dropped connection leaves it, and a resumed pull's
      // answer is also held until then. The pull ahead on the sign-in page brings the first page;
      // the vault's engine resumes it, and that pull is the one held. Later pulls pass as they come.
      // Taken at the network: the pull worker sends the pulls, not the page's own fetch.
      let release = () => {};
      let isReleased = false;
      const released = new Promise<void>((r) => (release = r)).then(() => void (isReleased = true));
      let held = false;
      await context.route("**/api/passwords/sync*", async (route) => {
        if (route.request().method() !== "GET" || isReleased) return route.continue();
        const res = await route.fetch();
        const type = res.headers()["content-type"] ?? "";
        if (!type.includes("ndjson")) return route.fulfill({ response: res });
        const lines = (await res.text()).split("\n");
        const ahead = new URL(route.request().url()).searchParams.get("resume") === null;
        if (!ahead) {
          held = true;
          await released;
        }
        return route.fulfill({
          status: res.status(),
          contentType: type,
          body: `${lines.slice(0, 2).join("\n")}\n`,
        });
      });
      await context.addInitScript(() => {
        const w = window as unknown as { __counts: number[] };
        // Every count the list's heading showed, in order: rows drawn are never taken back.
        w.__counts = [];
        new MutationObserver(() => {
          const m = /^Entries \((\d+)\)$/.exec(
            document.getElementById("entries-heading")?.textContent ?? "",
          );
          if (m && Number(m[1]) !== w.__counts.at(-1)) w.__counts.push(Number(m[1]));
        }).observe(document, { childList: true, subtree: true, characterData: true });
      });
      const p = await context.newPage();
      await signInThroughPage(p, user.token, PASSPHRASE);
      await expect.poll(() => held, { timeout: 60_000 }).toBe(true);
      // The first page is listed while the resumed pull is held: no cursor stored yet.
      await expect
        .poll(() => p.locator("#entries li[data-id]").count(), { timeout: 30_000 })
        .toBeGreaterThan(0);
      const shown = Number(/\((\d+)\)/.exec(await heading(p))![1]);
      expect(shown).toBeGreaterThan(0);
      expect(shown).toBeLessThan(COUNT);
      const cursor = () =>
        p.evaluate(
          () =>
            new Promise<number>((resolve, reject) => {
              const open = indexedDB.open("app-sync");
              open.onerror = () => reject(open.error);
              open.onsuccess = () => {
                const keys = open.result
                  .transaction("metadata")
                  .objectStore("metadata")
                  .getAllKeys();
                keys.onsuccess = () =>
                  resolve(
                    (keys.result as string[]).filter((k) => String(k).startsWith("cursor:")).length,
                  );
              };
            }),
        );
      expect(await cursor()).toBe(0);
      await screenshot(p, `screenshots/vault-scale-first-page-1280.png`);
      release();
      // The engine resumes after the cut: the list grows to every entry, each once, never shrinking on the way.
      await expect.poll(() => heading(p), { timeout: 90_000 }).toBe(`Entries (${COUNT})`);
      await expect.poll(() => listed(p), { timeout: 90_000 }).toEqual(all);
      expect(await cursor()).toBe(1);
      const counts = await p.evaluate(() => (window as unknown as { __counts: number[] }).__counts);
      const drawn = counts.slice(counts.findIndex((n) => n > 0));
      expect(drawn.every((n, i) => i === 0 || n >= drawn[i - 1]!)).toBe(true);
      expect(drawn.at(-1)).toBe(COUNT);
      await context.close();
    },
    LONG,
  );

  it(
    "finds an entry by username when the search is typed on a fresh sign-in, before its pass reached it",
    async () => {
      // A second new browser: no store, no tokens; the search waits on the pass that opens entries.
      const context = await browser.newContext({
        baseURL: base(),
        viewport: { width: 390, height: 844 },
      });
      const phone = await context.newPage();
      await signInThroughPage(phone, user.token, PASSPHRASE);
      await searchFor(phone, "zephyrine");
      await expect
        .poll(() => heading(phone), { timeout: 60_000 })
        .toBe(`Entries matching “zephyrine” (1)`);
      expect(await phone.locator("#entries li .name").allInnerTexts()).toEqual([LATE.name]);
      await openEntry(phone, LATE.name);
      expect(await revealedField(phone, "username")).toBe(LATE.username);
      await screenshot(phone, `screenshots/vault-scale-search-390.png`);
      await context.close();
    },
    LONG,
  );
});
