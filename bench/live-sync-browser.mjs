// Live sync as a person sees it (docs/decisions/sync.md, "Sync: live sync (a hub per user, told after each commit)"): two browser contexts of one
// user on the web app, both unlocked; the writer saves an entry through the entry dialog, and the
// figure is the time from the save's response (the writer's push answered) to the reader's vault
// list showing the entry's row: the notice, the reader's delta pull, its decryption and paint.
// bench/live-sync.mjs measures the server's share (write → the other device's pull holds it) and
// the hub's fan-out; this one adds the web client's. p50, p95 and p99 over --writes saves.
//   node bench/live-sync-browser.mjs [--writes 50] [--port 8773]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { fmt, signDevToken, startWorker } from "./lib/harness.mjs";
import { seedVault } from "./lib/vault-seed.mjs";

const { values } = parseArgs({
  options: { writes: { type: "string", default: "50" }, port: { type: "string", default: "8773" } },
});
const WRITES = Number(values.writes);
const PASSPHRASE = "bench passphrase";
const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};

console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
const worker = await startWorker({ port: Number(values.port), name: "live-sync-browser" });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
try {
  const sub = `bench-live-${Date.now()}`;
  const token = await signDevToken({ sub, email: `${sub}@example.test`, ttl: 4 * 3600 });
  // A small vault, so both contexts unlock one that exists (the seed sets its key derivation up).
  await seedVault({
    base: worker.base,
    token,
    sub,
    passphrase: PASSPHRASE,
    count: 20,
    website: (n) => `seed${n}.example.com`,
  });

  /** A context signed in with the auth cookie and unlocked on /vault. */
  const unlocked = async () => {
    const context = await browser.newContext({ baseURL: worker.base });
    await context.addCookies([
      { name: "access_token", value: token, url: worker.base, httpOnly: true, sameSite: "Strict" },
    ]);
    const page = await context.newPage();
    page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
    await page.goto("/");
    await page.getByLabel("Master passphrase").fill(PASSPHRASE);
    await page.getByRole("button", { name: "Open vault" }).click();
    await page.locator("body[data-ready=true]").waitFor({ timeout: 60_000 });
    await page.locator("#entries li").first().waitFor({ timeout: 60_000 });
    return page;
  };
  const writer = await unlocked();
  const reader = await unlocked();
  // The reader is connected to its hub before the first save (its live connection is open).
  const liveOpen = reader
    .waitForEvent("websocket", {
      predicate: (ws) => ws.url().endsWith("/api/sync/live"),
      timeout: 30_000,
    })
    .catch(() => null);
  await reader.reload();
  await reader.locator("body[data-ready=true]").waitFor({ timeout: 60_000 });
  if (!(await liveOpen)) throw new Error("the reader opened no live connection");
  await new Promise((r) => setTimeout(r, 1000));

  const isPush = (r) =>
    r.request().method() === "POST" &&
    ["/api/passwords/sync", "/api/passwords"].includes(new URL(r.url()).pathname) &&
    r.status() < 300;
  const latencies = [];
  for (let i = 0; i < WRITES; i++) {
    const name = `Live ${i} ${Date.now()}`;
    // Resolves with Date.now() in the reader's page when the row is in the list.
    const shown = reader.evaluate(
      (n) =>
        new Promise((resolve) => {
          const has = () =>
            [...document.querySelectorAll("#entries li .name")].some((e) => e.textContent === n);
          if (has()) return resolve(Date.now());
          const obs = new MutationObserver(() => {
            if (has()) {
              obs.disconnect();
              resolve(Date.now());
            }
          });
          obs.observe(document.body, { childList: true, subtree: true, characterData: true });
        }),
      name,
    );
    const saved = writer.waitForResponse(isPush, { timeout: 30_000 }).then(() => Date.now());
    if (!(await writer.locator("#entry-dialog[open]").count())) {
      await writer.getByRole("button", { name: "New entry", exact: true }).click();
      await writer.locator("#entry-dialog[open]").waitFor();
    }
    await writer.getByLabel("Name", { exact: true }).fill(name);
    await writer.getByLabel("Website", { exact: true }).fill(`live${i}.example.com`);
    await writer.getByLabel("Username", { exact: true }).fill("sam");
    await writer.getByLabel("Password", { exact: true }).fill(`pw-${i}-${Math.random()}`);
    await writer.getByRole("button", { name: "Save" }).click();
    const [savedAt, shownAt] = await Promise.all([saved, shown]);
    latencies.push(shownAt - savedAt);
    // The writer's queue drained before the next save, so each save is one push.
    await writer.locator('#pending[data-count="0"]').waitFor({ timeout: 30_000 });
  }
  console.log(
    `save response → the other browser's list shows it, ${WRITES} saves: p50 ${fmt(q(latencies, 0.5), 0)} ms, p95 ${fmt(q(latencies, 0.95), 0)} ms, p99 ${fmt(q(latencies, 0.99), 0)} ms, max ${fmt(Math.max(...latencies), 0)} ms`,
  );
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await browser.close();
  await worker.stop();
}
