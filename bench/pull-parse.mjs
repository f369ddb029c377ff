// The browser's read of a full pull (docs/decisions/sync.md, "Sync: a pull read page by page, resumed
// where it was cut"), in Chromium against wrangler dev: the spec's one JSON object parsed whole
// (`response.json()`, how the client read it before) beside the page-framed answer read line by line
// as it arrives (the client's reader, core/sync/ndjson.ts, bundled from the source). For each: the
// time to the first page parsed (the whole body for the one object), to the last, the longest task
// on the main thread (Long Tasks API; a task under 50 ms is not reported, so 0 means none over 50),
// and the JS heap after the read. The store's writes are the same per entry either way and are
// left out, so what differs is the parse.
//   node bench/pull-parse.mjs [--entries 10000] [--runs 5] [--port 8736]
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { join } from "node:path";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { benchSession, fmt, seedEntries, startWorker } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "10000" },
    runs: { type: "string", default: "5" },
    port: { type: "string", default: "8736" },
  },
});
const N = Number(values.entries);
const RUNS = Number(values.runs);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const reader = (
  await build({
    entryPoints: [join(ROOT, "core/sync/ndjson.ts")],
    bundle: true,
    write: false,
    format: "iife",
    globalName: "ndjson",
  })
).outputFiles[0].text;

const worker = await startWorker({
  port: Number(values.port),
  name: `pull-parse-${values.port}`,
  vars: { MAX_PASSWORDS_PER_USER: "1000000" },
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-dev-shm-usage", "--enable-precise-memory-info"],
});
try {
  seedEntries(worker, `parse-${N}`, N, `pull-parse-seed-${values.port}-${N}`, { unique: true });
  const { auth } = await benchSession(worker.base, `parse-${N}`);
  // The app's CSP allows no inline script; the bench injects the reader it measures.
  const page = await (
    await browser.newContext({ baseURL: worker.base, bypassCSP: true })
  ).newPage();
  await page.goto("/offline");
  await page.addScriptTag({ content: reader });
  const once = (framed) =>
    page.evaluate(
      async ({ framed, auth }) => {
        const longest = { ms: 0 };
        const obs = new PerformanceObserver((list) =>
          list.getEntries().forEach((e) => (longest.ms = Math.max(longest.ms, e.duration))),
        );
        obs.observe({ type: "longtask" });
        const t0 = performance.now();
        const res = await fetch("/api/passwords/sync", {
          headers: { ...auth, accept: framed ? "application/x-ndjson" : "application/json" },
          cache: "no-store",
        });
        let first = NaN;
        let changes = 0;
        if (framed) {
          for await (const line of window.ndjson.jsonLines(res.body)) {
            if (!Array.isArray(line.changes)) continue;
            if (Number.isNaN(first)) first = performance.now() - t0;
            changes += line.changes.length;
          }
        } else {
          changes = (await res.json()).changes.length;
          first = performance.now() - t0;
        }
        const all = performance.now() - t0;
        // Let the observer hear the last task.
        await new Promise((r) => setTimeout(r, 100));
        obs.disconnect();
        return {
          first,
          all,
          longest: longest.ms,
          changes,
          heap: performance.memory?.usedJSHeapSize ?? NaN,
        };
      },
      { framed, auth },
    );
  const out = { whole: [], pages: [] };
  for (let r = 0; r < RUNS; r++) {
    for (const framed of r % 2 ? [true, false] : [false, true]) {
      await page.evaluate(() => globalThis.gc?.());
      const m = await once(framed);
      if (m.changes !== N) throw new Error(`expected ${N} changes, read ${m.changes}`);
      out[framed ? "pages" : "whole"].push(m);
    }
  }
  console.log(
    `full pull of ${N.toLocaleString("en")} entries read in Chromium, medians of ${RUNS} alternating runs`,
  );
  for (const [label, xs] of [
    ["one JSON object, parsed whole", out.whole],
    ["page-framed, parsed per line", out.pages],
  ]) {
    const m = (k) => median(xs.map((x) => x[k]));
    console.log(
      `${label.padEnd(32)} first page ${fmt(m("first"), 0)} ms   all ${fmt(m("all"), 0)} ms   longest task ${fmt(m("longest"), 0)} ms (max ${fmt(Math.max(...xs.map((x) => x.longest)), 0)})   heap after ${fmt(m("heap") / 1048576, 1)} MiB`,
    );
  }
} finally {
  await browser.close();
  worker.stop();
}
