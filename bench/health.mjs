// Vault health bench (docs/decisions/client.md, "Client: vault health"): the health check of a 10,000-entry
// vault in Chromium, with the breach ranges already cached (a second check on the page), and how
// responsive the page stayed: the longest task (PerformanceObserver "longtask": any task of 50 ms
// or more) and the largest lateness of a 10 ms timer while it ran.
//   node bench/health.mjs [--entries 10000] [--floor]
//
// The checks are the web client's own: the page starts the health Web Worker (client/src/health/
// worker.ts, bundled as the client build does) through client/src/health/run.ts, as /health does,
// in Debian's Chromium. --floor also times, in the page, the strength estimator per password (random
// and word-plus-year), the fast path per password and SHA-1 per password, and checks that every
// random password the fast path let through scores 3 or more with the estimator. The range source is an in-page stand-in
// answering the real format (SUFFIX:COUNT rows, padding rows of count 0): the figure is the check,
// not the network. Opening the entries (one AES-GCM decryption each) is not part of it.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildSync } from "esbuild";
import { chromium } from "playwright-core";
import { ROOT } from "../scripts/lib/dev-identity.mjs";

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "10000" },
    floor: { type: "boolean", default: false },
  },
});
const N = Number(values.entries);

const bundle = buildSync({
  stdin: {
    contents: `
      import { HealthWorker } from "./client/src/health/run";
      import { sha1Hex } from "./core/health/breach";
      import { isLongRandom, longWords } from "./client/src/health/random-path";
      import { strengthTools } from "./client/src/health/strength";
      window.health = { HealthWorker, sha1Hex, isLongRandom, longWords, strengthTools };`,
    resolveDir: ROOT,
    loader: "ts",
  },
  bundle: true,
  format: "iife",
  platform: "browser",
  define: { __HEALTH_WORKER__: JSON.stringify("/health-worker.js") },
  write: false,
  logLevel: "warning",
});
const worker = buildSync({
  entryPoints: [join(ROOT, "client/src/health/worker.ts")],
  bundle: true,
  format: "esm",
  platform: "browser",
  minify: true,
  write: false,
  logLevel: "warning",
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage();
  // A secure context (Web Crypto), answered by the browser itself: no server, no network.
  await page.route("http://localhost/health-bench", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: "<!doctype html><title>health bench</title><p>bench</p>",
    }),
  );
  await page.route("http://localhost/health-worker.js", (route) =>
    route.fulfill({ contentType: "text/javascript", body: worker.outputFiles[0].text }),
  );
  await page.goto("http://localhost/health-bench");
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
  const result = await page.evaluate(
    async ({ n, floor }) => {
      const { HealthWorker, sha1Hex, isLongRandom, longWords, strengthTools } = window.health;
      const rand = (len) =>
        Array.from(
          crypto.getRandomValues(new Uint8Array(len)),
          (b) => "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#$%&*@"[b % 61],
        ).join("");
      const WORDS = [
        "sunshine",
        "dragon",
        "monkey",
        "football",
        "princess",
        "welcome",
        "shadow",
        "master",
        "summer",
        "flower",
      ];
      const shared = Array.from({ length: 200 }, () => rand(16));
      const items = [];
      for (let i = 0; i < n; i++) {
        const r = i % 10;
        // 60% unique strong, 20% from 200 shared passwords, 10% common word and year, 10% variations.
        const password =
          r < 6
            ? rand(16)
            : r < 8
              ? shared[i % 200]
              : r < 9
                ? `${WORDS[i % 10]}${1990 + (i % 35)}`
                : `Correcthorse${i % 50}!`;
        items.push({
          id: `e${i}`,
          name: `Entry ${i}`,
          host: i % 25 === 0 ? "github.com" : `site${i}.example`,
          username: `user${i}@example.test`,
          password,
          totp: "",
          changedAt: new Date(Date.now() - (i % 900) * 86400000).toISOString(),
          createdAt: new Date(Date.now() - 1000 * 86400000).toISOString(),
        });
      }
      // Breached: every tenth distinct password, listed in its range with a count.
      const breached = new Map();
      let k = 0;
      for (const p of new Set(items.map((i) => i.password)))
        if (k++ % 10 === 0) breached.set(await sha1Hex(p), 3);
      let asked = 0;
      const padding = [];
      for (let j = 0; j < 800; j++) padding.push(`${(await sha1Hex(`padding ${j}`)).slice(5)}:0`);
      const byPrefix = new Map();
      for (const [h, c] of breached)
        byPrefix.set(h.slice(0, 5), [...(byPrefix.get(h.slice(0, 5)) ?? []), `${h.slice(5)}:${c}`]);
      const source = async (prefix) => {
        asked++;
        // A range as the upstream pads it: about 800 rows, most of count 0.
        return [...(byPrefix.get(prefix) ?? []), ...padding].join("\\r\\n");
      };
      const input = { items, totp: ["github.com"], maxAgeDays: 365, breach: true };

      const longTasks = [];
      new PerformanceObserver((list) =>
        list.getEntries().forEach((e) => longTasks.push(e.duration)),
      ).observe({ type: "longtask" });
      const run = async (health) => {
        // Long tasks of the set-up above are reported late: let them arrive before counting.
        await new Promise((r) => setTimeout(r, 300));
        longTasks.length = 0;
        let lateMax = 0;
        let expected = performance.now() + 10;
        const timer = setInterval(() => {
          const now = performance.now();
          lateMax = Math.max(lateMax, now - expected);
          expected = now + 10;
        }, 10);
        const t0 = performance.now();
        const report = await health.check(input);
        const ms = performance.now() - t0;
        clearInterval(timer);
        await new Promise((r) => setTimeout(r, 100));
        return {
          ms: Math.round(ms),
          longestTaskMs: Math.round(Math.max(0, ...longTasks)),
          longTasks: longTasks.length,
          timerLateMaxMs: Math.round(lateMax),
          counts: report.counts,
          score: report.score,
        };
      };
      // Starting the worker (loading the estimator's dictionaries in it) is part of the first check.
      const health = new HealthWorker(source);
      const cold = await run(health);
      const askedCold = asked;
      const warm = await run(health);
      health.close();
      const out = {
        cold: { ...cold, rangesAsked: askedCold },
        warm: { ...warm, rangesAsked: asked - askedCold },
      };
      if (floor) {
        // The floor: what one password costs, on this page's own thread.
        const { checker, dictionary, graphs } = await strengthTools();
        const words = longWords(dictionary, graphs);
        const randoms = Array.from({ length: 200 }, () => rand(16));
        const time = (list, f) => {
          const t = performance.now();
          for (const p of list) f(p);
          return +((performance.now() - t) / list.length).toFixed(3);
        };
        let passed = 0;
        let disagreed = 0;
        const zxcvbnRandomMs = time(randoms, (p) => {
          const s = checker.check(p, []).score;
          if (isLongRandom(p, words)) {
            passed++;
            if (s < 3) disagreed++;
          }
        });
        const zxcvbnWordMs = time(
          Array.from({ length: 50 }, (_, i) => `${WORDS[i % 10]}${1990 + i}`),
          (p) => checker.check(p, []),
        );
        const fastPathMs = time(randoms, (p) => isLongRandom(p, words));
        const t = performance.now();
        for (const p of randoms) await sha1Hex(p);
        out.floor = {
          zxcvbnRandomMs,
          zxcvbnWordMs,
          fastPathMs,
          sha1Ms: +((performance.now() - t) / randoms.length).toFixed(3),
          fastPathTaken: `${passed}/${randoms.length}`,
          fastPathButEstimatorWeak: disagreed,
        };
      }
      return out;
    },
    { n: N, floor: values.floor },
  );
  console.log(JSON.stringify({ entries: N, ...result }, null, 2));
  console.log(
    `health check of ${N} entries, ranges cached: ${result.warm.ms} ms (longest task ${result.warm.longestTaskMs} ms, ${result.warm.longTasks} tasks of 50 ms or more; a 10 ms timer was at most ${result.warm.timerLateMaxMs} ms late)`,
  );
  console.log(
    `first check (worker start and ranges fetched from the in-page stand-in, ${result.cold.rangesAsked} asked): ${result.cold.ms} ms, longest task ${result.cold.longestTaskMs} ms`,
  );
  if (result.floor)
    console.log(
      `per password: estimator ${result.floor.zxcvbnRandomMs} ms (random 16), ${result.floor.zxcvbnWordMs} ms (word and year); fast path ${result.floor.fastPathMs} ms; SHA-1 ${result.floor.sha1Ms} ms; fast path taken by ${result.floor.fastPathTaken} random passwords, ${result.floor.fastPathButEstimatorWeak} of them weak by the estimator`,
    );
} finally {
  await browser.close();
}
