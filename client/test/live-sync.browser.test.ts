import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { apiAs } from "./support/api";
import {
  entryNames,
  fillEntry,
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  waitForPending,
  type Browser,
  type Page,
} from "./support/browser";

// Live sync: two browsers of one person; a save in one shows in the other without a reload, as
// soon as the hub says the change clock moved (not at the next 30-second run).
const PASSPHRASE = "live sync passphrase";
const base = server().baseUrl;
let browser: Browser;
let writer: Page;
let reader: Page;
let api: Awaited<ReturnType<typeof apiAs>>;
/** The reader's live connections, as Playwright sees them (each also connected to the server). */
const readerSockets: { close(): Promise<void> }[] = [];
/** When each of the reader's connections reached the server (Date.now()), in order. */
const readerConnectedAt: number[] = [];
let allowReader = true;

const isPush = (r: { url(): string; method(): string }) =>
  r.method() === "POST" &&
  ["/api/passwords/sync", "/api/passwords"].includes(new URL(r.url()).pathname);
const isPull = (r: { url(): string; method(): string }) =>
  r.method() === "GET" && new URL(r.url()).pathname === "/api/passwords/sync";

/** Resolves with Date.now() (in the reader's page) when an entry named `name` is in the list. */
function whenShown(page: Page, name: string): Promise<number> {
  return page.evaluate(
    (n) =>
      new Promise<number>((resolve) => {
        const shown = () =>
          [...document.querySelectorAll("#entries li .name")].some((e) => e.textContent === n);
        if (shown()) return resolve(Date.now());
        const obs = new MutationObserver(() => {
          if (shown()) {
            obs.disconnect();
            resolve(Date.now());
          }
        });
        obs.observe(document.body, { childList: true, subtree: true, characterData: true });
      }),
    name,
  );
}

beforeAll(async () => {
  const user = await newUser("live");
  api = await apiAs(base, user.token);
  browser = await launch();
  const a = await browser.newContext({ baseURL: base });
  const b = await browser.newContext({ baseURL: base });
  // The reader's connection goes through Playwright, so a test can drop it or refuse reconnects.
  await b.routeWebSocket(/\/api\/sync\/live$/, (ws) => {
    if (!allowReader) return void ws.close({ code: 1011, reason: "refused by the test" });
    ws.connectToServer();
    readerConnectedAt.push(Date.now());
    readerSockets.push(ws);
  });
  writer = await a.newPage();
  reader = await b.newPage();
  for (const p of [writer, reader])
    p.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await signInThroughPage(writer, user.token, PASSPHRASE);
  await signInThroughPage(reader, user.token, PASSPHRASE);
  await reader.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
});

afterAll(async () => {
  await browser?.close();
});

describe("live sync between two browsers of one person", () => {
  it("a save in one appears in the other without a reload, within a second of the save's response", async () => {
    await expect.poll(() => readerSockets.length).toBeGreaterThan(0);
    const shown = whenShown(reader, "Live entry");
    const saved = writer
      .waitForResponse((r) => isPush(r.request()) && r.status() < 300)
      .then(() => Date.now());
    await fillEntry(writer, {
      name: "Live entry",
      website: "live.example",
      username: "sam",
      password: "pw-live",
    });
    const [savedAt, shownAt] = await Promise.all([saved, shown]);
    const ms = shownAt - savedAt;
    console.log(`live sync: write response to the other browser showing it: ${ms} ms`);
    expect(ms).toBeLessThan(1000);
    expect(
      await reader.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true);
    await waitForPending(writer, 0);
    await screenshot(reader, "live-sync-reader.png");
  });

  it("a dropped connection reconnects and catches up with what changed meanwhile", async () => {
    allowReader = false;
    const open = readerSockets.splice(0);
    await Promise.all(open.map((ws) => ws.close()));
    // Written while the reader has no connection: no notice can reach it.
    await fillEntry(writer, {
      name: "While away",
      website: "away.example",
      username: "sam",
      password: "pw-away",
    });
    await waitForPending(writer, 0);
    expect((await api.entries()).has("While away")).toBe(true);
    expect(await entryNames(reader)).not.toContain("While away");
    const pulls: number[] = [];
    reader.on("request", (r) => {
      if (isPull(r)) pulls.push(Date.now());
    });
    const shown = whenShown(reader, "While away");
    allowReader = true;
    await expect.poll(() => readerSockets.length, { timeout: 10_000 }).toBeGreaterThan(0);
    // The moment the connection was made, not the moment the poll above noticed it: the
    // reconnect's greeting and the pull it starts can both come within the poll's interval.
    const reconnectedAt = readerConnectedAt.at(-1)!;
    const shownAt = await shown;
    console.log(`live sync: reconnect to caught up: ${shownAt - reconnectedAt} ms`);
    // Caught up by the reconnect's greeting (a clock past the cursor), not the 30-second run.
    expect(pulls.some((t) => t >= reconnectedAt - 50)).toBe(true);
    expect(shownAt - reconnectedAt).toBeLessThan(5000);
    expect(
      await reader.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true);
  });
});
