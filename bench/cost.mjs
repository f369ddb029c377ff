// What each request costs on the platform's meters (docs/cost.md): one `wrangler dev` with the cost
// counters on (COST_COUNTERS, src/http/request-cost.ts), vaults of 1,000 and 10,000 entries seeded
// through local D1, and each route sent N times. Per route it prints D1 statements, rows read and
// written, Durable Object calls, R2 operations (class A / B), queue messages and fetches (from the
// X-Request-Cost header, exact), and CPU ms per request: the workerd runtime process's user+system
// CPU over the N requests (from /proc, 10 ms ticks) minus what the same process spent idle for the
// same time. That process also runs the local D1 (SQLite), R2 and Durable Objects, so the figure
// holds their work too; it leaves out the wrangler proxy in front. The routine requests are
// bench/lib/cost-routes.mjs, which the regression test (test/cost/budget.test.ts) sends too.
// Writes docs/cost.json, the table docs/cost.md shows and the test holds requests to.
//   node bench/cost.mjs [--sizes 1000,10000] [--repeat 20] [--port 8790] [--out docs/cost.json]
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { startDovecot } from "../test/support/dovecot-lib.mjs";
import { b64, benchSession, fmt, startWorker, workerdPids } from "./lib/harness.mjs";
import { occasional } from "./lib/cost-occasional.mjs";
import { routineRoutes, seedThroughApi } from "./lib/cost-routes.mjs";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    repeat: { type: "string", default: "20" },
    port: { type: "string", default: "8790" },
    out: { type: "string", default: "docs/cost.json" },
  },
});
// An empty list (--sizes "") measures only the requests made now and then.
// The machine's load average (1 minute) at the start and the end: the CPU figures are as noisy as it is high.
const load = [loadavg()[0]];
const SIZES = values.sizes.split(",").filter(Boolean).map(Number);
const N = Number(values.repeat);
const PORT = Number(values.port);

/** A stand-in for the Pwned Passwords range API, so the breach check's fetch stays on this machine. */
const range = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/plain" });
  res.end(
    Array.from(
      { length: 800 },
      (_, i) => `${i.toString(16).toUpperCase().padStart(35, "0")}:${i}`,
    ).join("\r\n"),
  );
});
await new Promise((r) => range.listen(0, "127.0.0.1", r));
// The mailbox a reset start needs connected (bench/lib/cost-occasional.mjs), as bench/reset.mjs has it.
const dovecot = await startDovecot({ prefix: "bench-cost-" });

const worker = await startWorker({
  port: PORT,
  name: "cost",
  vars: {
    MAX_PASSWORDS_PER_USER: "1000000",
    COST_COUNTERS: "true",
    OUTBOUND_ALLOW_PRIVATE: "true",
    PWNED_RANGE_URL: `http://127.0.0.1:${range.address().port}/range/`,
    IMAP_ALLOWED_PORTS: `143,993,${dovecot.port}`,
    // Reset starts are sent back to back, faster than their tasks end: the caps would refuse them.
    MAX_LIVE_BROWSERS: "1000",
    MAX_LIVE_BROWSERS_PER_USER: "1000",
  },
});

const ticks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the ") " split.
  return Number(f[11]) + Number(f[12]);
};
const TICK_MS = 10;
const { runtime } = workerdPids(PORT);

/** The runtime's CPU per wall-clock ms while nothing is asked of it. */
async function idleRate() {
  const t0 = performance.now();
  const c0 = ticks(runtime);
  await new Promise((r) => setTimeout(r, 5000));
  return ((ticks(runtime) - c0) * TICK_MS) / (performance.now() - t0);
}
let idle = await idleRate();

const parseCost = (h) =>
  Object.fromEntries(
    String(h ?? "")
      .split(",")
      .map((p) => p.trim().split("="))
      .filter((p) => p.length === 2)
      .map(([k, v]) => [k, v === "unmetered" ? NaN : Number(v)]),
  );
/** Request id → whole cost, from the worker's log lines of streamed answers. */
function streamedCosts() {
  const out = new Map();
  for (const line of readFileSync(worker.logFile, "utf8").split("\n")) {
    if (!line.includes('"request cost"')) continue;
    const id = /"requestId":"([^"]+)"/.exec(line)?.[1];
    const cost = /"cost":"([^"]+)"/.exec(line)?.[1];
    if (id && cost) out.set(id, cost);
  }
  return out;
}

/** The costs the worker logged for WebSocket upgrades, oldest first. */
const upgradeCosts = () =>
  readFileSync(worker.logFile, "utf8")
    .split("\n")
    .filter((l) => l.includes('"request cost"') && l.includes('"upgrade":true'))
    .map((l) => /"cost":"([^"]+)"/.exec(l)?.[1]);

const KEYS = ["d1", "rows_read", "rows_written", "do", "r2_a", "r2_b", "queue", "fetch"];

const results = [];
/**
 * Sends `send(i)` `n` times after `warm` unmeasured ones. Counts are the highest seen (a cache
 * filled by the first request makes later ones cheaper; the warm-up takes that out) and `varies`
 * says whether they differed between the measured requests.
 */
async function measure(key, route, size, send, { n = N, warm = 2, routine = true } = {}) {
  try {
    for (let i = 0; i < warm; i++) await send(-1 - i);
    const seen = [];
    const t0 = performance.now();
    const c0 = ticks(runtime);
    const ids = [];
    for (let i = 0; i < n; i++) {
      const res = await send(i);
      ids.push(res.headers["x-request-id"]);
      seen.push(parseCost(res.headers["x-request-cost"]));
    }
    const wall = performance.now() - t0;
    const cpu = ((ticks(runtime) - c0) * TICK_MS - idle * wall) / n;
    // A streamed answer's whole cost is logged when its body ends (src/http/request-cost.ts).
    await new Promise((r) => setTimeout(r, 300));
    const whole = streamedCosts();
    ids.forEach((id, i) => {
      if (whole.has(id)) seen[i] = parseCost(whole.get(id));
    });
    const cost = Object.fromEntries(
      KEYS.map((k) => [k, Math.max(...seen.map((s) => s[k] ?? NaN))]),
    );
    const varies = KEYS.filter((k) => new Set(seen.map((s) => s[k])).size > 1);
    const row = {
      key,
      route,
      size,
      routine,
      n,
      ...cost,
      cpu_ms: Math.max(0, cpu),
      wall_ms: wall / n,
      varies,
    };
    results.push(row);
    console.log(
      `${route.padEnd(40)} ${String(size).padStart(6)}  ${KEYS.map((k) => String(cost[k]).padStart(k.length)).join(" ")}  cpu ${fmt(row.cpu_ms, 1).padStart(6)} ms  wall ${fmt(row.wall_ms, 1).padStart(7)} ms${varies.length ? `  (varies: ${varies.join(",")})` : ""}`,
    );
  } catch (err) {
    results.push({ key, route, size, routine, error: String(err.message ?? err).slice(0, 200) });
    console.log(
      `${route.padEnd(40)} ${String(size).padStart(6)}  failed: ${String(err.message ?? err).slice(0, 200)}`,
    );
  }
}

try {
  console.log(`runtime idle: ${fmt(idle, 3)} CPU ms per ms; ${N} requests per route\n`);
  console.log(`${"route".padEnd(40)} ${"size".padStart(6)}  ${KEYS.join(" ")}`);
  for (const size of SIZES) {
    const userId = `cost-${size}`;
    const u = await benchSession(worker.base, userId);
    const ctx = {
      size,
      id: (k) => `${userId}-${((k % size) + size) % size}`,
      call: u.call,
      b64,
      stamp: () => new Date().toISOString(),
    };
    // Through the API, as the regression test seeds: the same rows, so the same rows read.
    await seedThroughApi(ctx, userId);
    for (const r of routineRoutes) {
      await r.setup?.(ctx);
      await measure(r.key, r.label, size, (i) => r.send(ctx, i), {
        n: r.few ? (size >= 10000 ? 5 : 10) : N,
        warm: r.few ? 1 : 2,
      });
    }
    // Live sync: the WebSocket's connect (its 101 logs its cost, src/http/request-cost.ts).
    const wsUrl = `${worker.base.replace(/^http/, "ws")}/api/sync/live`;
    await measure("live-connect", "live sync, connect", size, async () => {
      const before = upgradeCosts().length;
      const ws = new WebSocket(wsUrl, [
        "vault-live",
        `vault-bearer.${u.auth.Authorization.slice(7)}`,
      ]);
      await new Promise((resolve, reject) => {
        ws.onopen = resolve;
        ws.onerror = () => reject(new Error("live sync did not connect"));
      });
      ws.close();
      for (let i = 0; i < 40 && upgradeCosts().length === before; i++)
        await new Promise((r) => setTimeout(r, 50));
      return { headers: { "x-request-cost": upgradeCosts().at(-1) } };
    });
    await measure("breach-range-cached", "health: breach range, cached", size, () =>
      u.call("GET", "/api/breach/range/ABCDE"),
    );
    idle = await idleRate();
  }
  await occasional({ worker, measure, session: benchSession, dovecot });
} finally {
  worker.stop();
  range.close();
  await dovecot.stop();
}

const out = join(ROOT, values.out);
writeFileSync(
  out,
  `${JSON.stringify({ measured: new Date().toISOString().slice(0, 10), repeat: N, load: [...load, loadavg()[0]].map((l) => Math.round(l * 10) / 10), routes: results }, null, 2)}\n`,
);
console.log(`\nwrote ${values.out}`);
