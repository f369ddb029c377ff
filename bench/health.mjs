// Vault health bench (docs/decisions.md, Client: vault health): the health check of a 10,000-entry
// vault in Chromium, with the breach ranges already cached (a second check on the page), and how
// responsive the page stayed: the longest task (PerformanceObserver "longtask": any task of 50 ms
// or more) and the largest lateness of a 10 ms timer while it ran.
//   node bench/health.mjs [--entries 10000]
//
// The detectors are the web client's own modules (client/src/health, client/src/strength.ts with
// zxcvbn-ts), bundled by esbuild and run in Debian's Chromium. The range source is an in-page stand-in
// answering the real format (SUFFIX:COUNT rows, padding rows of count 0): the figure is the check,
// not the network. Opening the entries (one AES-GCM decryption each) is not part of it.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildSync } from "esbuild";
import { chromium } from "playwright-core";
import { ROOT } from "../scripts/lib/dev-identity.mjs";

const { values } = parseArgs({ options: { entries: { type: "string", default: "10000" } } });
const N = Number(values.entries);

const bundle = buildSync({
  stdin: {
    contents: `
      import { checkHealth, hostMatches } from "./client/src/health/detectors";
      import { BreachChecker, sha1Hex } from "./client/src/health/breach";
      import { strengthTools } from "./client/src/strength";
      window.health = { checkHealth, hostMatches, BreachChecker, sha1Hex, strengthTools };`,
    resolveDir: ROOT,
    loader: "ts",
  },
  bundle: true,
  format: "iife",
  platform: "browser",
  write: false,
  logLevel: "warning",
});

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-dev-shm-usage"] });
try {
  const page = await browser.newPage();
  // A secure context (Web Crypto), answered by the browser itself: no server, no network.
  await page.route("http://localhost/health-bench", (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><title>health bench</title><p>bench</p>" }));
  await page.goto("http://localhost/health-bench");
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
  const result = await page.evaluate(async (n) => {
    const { checkHealth, hostMatches, BreachChecker, sha1Hex, strengthTools } = window.health;
    const rand = (len) => Array.from(crypto.getRandomValues(new Uint8Array(len)), (b) => "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#$%&*@"[b % 61]).join("");
    const WORDS = ["sunshine", "dragon", "monkey", "football", "princess", "welcome", "shadow", "master", "summer", "flower"];
    const shared = Array.from({ length: 200 }, () => rand(16));
    const items = [];
    for (let i = 0; i < n; i++) {
      const r = i % 10;
      // 60% unique strong, 20% from 200 shared passwords, 10% common word and year, 10% variations.
      const password = r < 6 ? rand(16) : r < 8 ? shared[i % 200] : r < 9 ? `${WORDS[i % 10]}${1990 + (i % 35)}` : `Correcthorse${i % 50}!`;
      items.push({ id: `e${i}`, name: `Entry ${i}`, host: i % 25 === 0 ? "github.com" : `site${i}.example`, username: `user${i}@example.test`, password, totp: "", changedAt: new Date(Date.now() - (i % 900) * 86400000).toISOString(), createdAt: new Date(Date.now() - 1000 * 86400000).toISOString() });
    }
    // Breached: every tenth distinct password, listed in its range with a count.
    const breached = new Map();
    let k = 0;
    for (const p of new Set(items.map((i) => i.password))) if (k++ % 10 === 0) breached.set(await sha1Hex(p), 3);
    let asked = 0;
    const padding = [];
    for (let j = 0; j < 800; j++) padding.push(`${(await sha1Hex(`padding ${j}`)).slice(5)}:0`);
    const byPrefix = new Map();
    for (const [h, c] of breached) byPrefix.set(h.slice(0, 5), [...(byPrefix.get(h.slice(0, 5)) ?? []), `${h.slice(5)}:${c}`]);
    const source = async (prefix) => {
      asked++;
      // A range as the upstream pads it: about 800 rows, most of count 0.
      return [...(byPrefix.get(prefix) ?? []), ...padding].join("\\r\\n");
    };
    const { checker } = await strengthTools();
    const options = (breach) => ({ strength: (p, u) => checker.check(p, u), breach, offersTotp: (h) => hostMatches(h, new Set(["github.com"])) });

    const longTasks = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => longTasks.push(e.duration))).observe({ type: "longtask" });
    const run = async (breach) => {
      longTasks.length = 0;
      let lateMax = 0;
      let expected = performance.now() + 10;
      const timer = setInterval(() => {
        const now = performance.now();
        lateMax = Math.max(lateMax, now - expected);
        expected = now + 10;
      }, 10);
      const t0 = performance.now();
      const report = await checkHealth(items, options(breach));
      const ms = performance.now() - t0;
      clearInterval(timer);
      await new Promise((r) => setTimeout(r, 100));
      return { ms: Math.round(ms), longestTaskMs: Math.round(Math.max(0, ...longTasks)), longTasks: longTasks.length, timerLateMaxMs: Math.round(lateMax), counts: report.counts, score: report.score };
    };
    const breach = new BreachChecker(source);
    const cold = await run(breach);
    const askedCold = asked;
    const warm = await run(breach);
    return { cold: { ...cold, rangesAsked: askedCold }, warm: { ...warm, rangesAsked: asked - askedCold } };
  }, N);
  console.log(JSON.stringify({ entries: N, ...result }, null, 2));
  console.log(`health check of ${N} entries, ranges cached: ${result.warm.ms} ms (longest task ${result.warm.longestTaskMs} ms, ${result.warm.longTasks} tasks of 50 ms or more; a 10 ms timer was at most ${result.warm.timerLateMaxMs} ms late)`);
  console.log(`first check (ranges fetched from the in-page stand-in, ${result.cold.rangesAsked} asked): ${result.cold.ms} ms, longest task ${result.cold.longestTaskMs} ms`);
} finally {
  await browser.close();
}
