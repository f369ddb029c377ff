// Hot-path bench (docs/decisions/sync.md, "Sync: hot paths (delta pull, match, create, Server-Timing)"): one `wrangler dev`, vaults of 1,000, 10,000 and 100,000 entries seeded
// through local D1, and in one run the trivial route beside delta pull, match, create, push, import
// and full pull, so every target is a ratio of figures taken on the same machine at the same time.
// The machine is shared, so absolute figures are noisy; read the ratios and their flatness. Each
// ratio is taken beside its own trivial figure (wrk runs in pairs, single requests interleaved).
//   node bench/hot-paths.mjs [--sizes 1000,10000,100000] [--seconds 8] [--connections 10] [--runs 7] [--pairs 3] [--port 8760]
//                            [--inspector-port <port + 1>] (wrangler's own default is 9229, often taken)
//   BENCH_SAMPLES=1 also prints each delta sample beside the trivial route's.
import { parseArgs } from "node:util";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  b64,
  benchEntry,
  benchSession,
  ensureWrk,
  fmt,
  memKiB,
  seedEntries,
  startWorker,
  workerdPids,
  workerHeapProbe,
  wrk,
} from "./lib/harness.mjs";
import { MATCH_PATH, TRIVIAL, trivialRoute } from "./lib/paired.mjs";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "10" },
    runs: { type: "string", default: "7" },
    pairs: { type: "string", default: "3" },
    port: { type: "string", default: "8760" },
    "inspector-port": { type: "string" },
  },
});
const SIZES = values.sizes.split(",").map(Number);
const RUNS = Number(values.runs);
const PAIRS = Number(values.pairs);
const WRK = { seconds: Number(values.seconds), connections: Number(values.connections) };
const PORT = Number(values.port);
const INSPECTOR = values["inspector-port"] ? Number(values["inspector-port"]) : PORT + 1;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

ensureWrk();
const worker = await startWorker({
  port: PORT,
  name: "hot-paths",
  inspectorPort: INSPECTOR,
  vars: { MAX_PASSWORDS_PER_USER: "1000000", SERVER_TIMING: "true" },
});

/** Seeds `n` entries for `userId` straight into local D1. */
const seed = (userId, n) => seedEntries(worker, userId, n, `hot-paths-seed-${n}`);

const session = (sub) => benchSession(worker.base, sub);

const row = (label, text) => console.log(`${label.padEnd(44)} ${text}`);
const timing = (headers) => (headers["server-timing"] ? `  [${headers["server-timing"]}]` : "");

// The worker isolate's heap, read through the inspector. Connected before any load: connected at the
// first full pull, after 96 s of wrk at the default --seconds 8, the inspector no longer answered.
let heap;
try {
  heap = await workerHeapProbe(INSPECTOR, worker.base);
  const t0 = performance.now();
  for (const n of SIZES) seed(`hot-${n}`, n);
  console.log(`seeded ${SIZES.join(", ")} entries in ${fmt((performance.now() - t0) / 1000, 1)} s`);

  // The trivial route: single-request latency (sequential) and throughput (wrk) of an authenticated GET.
  const probe = await session("hot-probe");
  const trivialRun = trivialRoute(worker.base, probe, { ...WRK, pairs: PAIRS });
  /** One request of the trivial route, its latency in ms. */
  const trivialOnce = trivialRun.once;
  for (let i = 0; i < 20; i++) await trivialOnce();
  const trivialSingle = [];
  for (let i = 0; i < 100; i++) trivialSingle.push(await trivialOnce());
  const trivialOne = median(trivialSingle);
  const trivialUrl = trivialRun.url;
  wrk(trivialUrl, probe.auth, { ...WRK, seconds: 2 });
  const trivial = wrk(trivialUrl, probe.auth, WRK);
  row(
    `trivial GET ${TRIVIAL}`,
    `single ${fmt(trivialOne)} ms   wrk c=${WRK.connections}: p50 ${fmt(trivial.p50)} ms  p99 ${fmt(trivial.p99)} ms  ${fmt(trivial.rps, 0)} req/s`,
  );

  // wrk on the trivial route and on a route in turn, PAIRS times (lib/paired.mjs).
  const paired = trivialRun.paired;

  const createLua = join(worker.state, "..", "hot-paths-create.lua");
  const summary = [];
  for (const n of SIZES) {
    console.log(`\n--- vault of ${n.toLocaleString("en")} entries ---`);
    const u = await session(`hot-${n}`);
    const ids = Array.from({ length: 1000 }, (_, k) => `hot-${n}-${Math.floor((k * n) / 1000)}`);

    // Delta pull of 100 changes, and the push of 100 mutations that made them.
    const push = [];
    const delta = [];
    const deltaTrivial = [];
    let deltaTiming = "";
    let cursor = (
      await u.call(
        "GET",
        `/api/passwords/sync?since=${encodeURIComponent(new Date().toISOString())}`,
      )
    ).json.serverTimestamp;
    // The first rounds are not counted: whichever vault came first used to read twice as slow
    // (3.1x against 1.7x for the same 10,000 entries), the first pulls after the seeding slowest.
    const WARM = 2;
    if (RUNS + WARM > 10)
      throw new Error(
        "--runs is at most 8: each round edits 100 of the 1,000 entries it cycles through",
      );
    for (let r = 0; r < RUNS + WARM; r++) {
      const stamp = new Date().toISOString();
      const mutations = Array.from({ length: 100 }, (_, k) => {
        const id = ids[(r * 100 + k) % ids.length];
        return k % 10 === 9
          ? { action: "delete", id, clientUpdatedAt: stamp }
          : {
              action: "update",
              id,
              clientUpdatedAt: stamp,
              data: {
                name: `Edited ${r}.${k}`,
                encrypted_data: b64(300),
                wrapped_item_key: b64(40),
                encryption_version: 3,
              },
            };
      });
      const p = await u.call("POST", "/api/passwords/sync", { mutations });
      const applied = p.json.results.filter((x) => x.status === "applied").length;
      if (applied !== 100) throw new Error(`push applied ${applied} of 100`);
      const counted = r >= WARM;
      if (counted) push.push(p.ms);
      // The same cursor pulled five times returns the same 100 changes: five samples a round, each
      // beside one of the trivial route's.
      let next;
      for (let j = 0; j < 5; j++) {
        const d = await u.call("GET", `/api/passwords/sync?since=${encodeURIComponent(cursor)}`);
        if (d.json.changes.length !== 100)
          throw new Error(`delta pull returned ${d.json.changes.length} changes`);
        if (counted) delta.push(d.ms);
        deltaTiming = timing(d.headers);
        next ??= d.json.serverTimestamp;
        if (counted) deltaTrivial.push(await trivialOnce());
      }
      cursor = next;
    }
    const deltaMs = median(delta);
    if (process.env.BENCH_SAMPLES)
      console.log(
        "  delta samples",
        delta.map((x) => fmt(x, 1)).join(" "),
        " trivial",
        deltaTrivial.map((x) => fmt(x, 1)).join(" "),
      );
    const deltaRatio = deltaMs / median(deltaTrivial);
    row(
      "delta pull, 100 changes",
      `median ${fmt(deltaMs)} ms  = ${fmt(deltaRatio)}x trivial single (${fmt(median(deltaTrivial))} ms beside it)${deltaTiming}`,
    );

    // Match at 10 connections, plain and revalidated (If-None-Match of the first answer's ETag).
    const matchPath = MATCH_PATH;
    const first = await u.call("GET", matchPath);
    const matchPaired = paired(`${worker.base}${matchPath}`, u.auth);
    const match = matchPaired.run;
    row(
      "match",
      `p50 ${fmt(match.p50)} ms  p99 ${fmt(match.p99)} ms  ${fmt(match.rps, 0)} req/s  p99 = ${fmt(matchPaired.p99)}x trivial (${fmt(matchPaired.trivialP99)} ms beside it)  (${first.json.matches.length} matches)${timing(first.headers)}`,
    );
    let floor = { single: NaN, rps: NaN };
    if (first.headers.etag) {
      const inm = { "if-none-match": first.headers.etag };
      const again = await u.call("GET", matchPath, undefined, inm);
      const revalidatedPaired = paired(`${worker.base}${matchPath}`, { ...u.auth, ...inm });
      const revalidated = revalidatedPaired.run;
      row(
        "match, If-None-Match (304)",
        `p50 ${fmt(revalidated.p50)} ms  p99 ${fmt(revalidated.p99)} ms  ${fmt(revalidated.rps, 0)} req/s  status ${again.status}${timing(again.headers)}`,
      );
      // The floor of any route that reads D1: the revalidation is the trivial route's work (auth,
      // rate limit) plus one D1 statement with a one-row answer and no body. Single requests are
      // interleaved with the trivial route's, so both see the same moment of the machine.
      const one = [];
      const triv = [];
      for (let i = 0; i < 100; i++) {
        one.push((await u.call("GET", matchPath, undefined, inm)).ms);
        triv.push(await trivialOnce());
      }
      floor = { single: median(one) / median(triv), rps: revalidatedPaired.rps };
      row(
        "floor: one D1 read, no body (the 304)",
        `single ${fmt(median(one))} ms = ${fmt(floor.single)}x trivial single (${fmt(median(triv))} ms beside it)   ${fmt(floor.rps)}x trivial req/s`,
      );
    }

    // Full pull: time, bytes, and memory while it runs. The runtime process also hosts the local D1,
    // so its growth is split as the kernel counts it, and the worker's own isolate is read apart:
    // its V8 heap, sampled through the inspector, from a collected start.
    const { runtime } = workerdPids(PORT);
    const heapBefore = await heap.usedAfterGc();
    const before = memKiB(runtime);
    const peak = { ...before };
    let heapPeak = heapBefore;
    let pulling = true;
    const sampler = setInterval(() => {
      const now = memKiB(runtime);
      for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], now[k]);
    }, 5);
    const heapSampler = (async () => {
      while (pulling) {
        heapPeak = Math.max(heapPeak, await heap.usedNow());
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const full = await u.call("GET", "/api/passwords/sync");
    pulling = false;
    clearInterval(sampler);
    await heapSampler;
    if (full.json.changes.length < n - 100)
      throw new Error(`full pull returned ${full.json.changes.length}`);
    const grew = (k) => (peak[k] - before[k]) / 1024;
    const growthMiB = grew("rss");
    const heapMiB = (heapPeak - heapBefore) / 1024 / 1024;
    row(
      "full pull",
      `${fmt(full.ms, 0)} ms  ${fmt(full.bytes / 1024 / 1024)} MiB  workerd RSS growth ${fmt(growthMiB, 1)} MiB (anonymous ${fmt(grew("anon"), 1)}, file-backed ${fmt(grew("file"), 1)})  worker heap peak +${fmt(heapMiB, 1)} MiB${timing(full.headers)}`,
    );

    // Create throughput (wrk POST, each request a new entry).
    const body = JSON.stringify(benchEntry(1));
    writeFileSync(
      createLua,
      `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["X-CSRF-Token"] = ${JSON.stringify(u.csrfToken)}\n`,
    );
    const oneCreate = await u.call("POST", "/api/passwords", benchEntry(2));
    const createPaired = paired(`${worker.base}/api/passwords`, u.auth, { script: createLua });
    const create = createPaired.run;
    if (createPaired.non2xx > 0)
      console.log(`  (create: ${createPaired.non2xx} non-2xx responses)`);
    row(
      "create",
      `p50 ${fmt(create.p50)} ms  p99 ${fmt(create.p99)} ms  ${fmt(create.rps, 0)} req/s  = ${fmt(createPaired.rps)}x trivial (${fmt(createPaired.trivialRps, 0)} req/s beside it)${timing(oneCreate.headers)}`,
    );

    // Import of 5,000 entries into this vault (runs last: it grows the vault).
    const imp = await u.call("POST", "/api/passwords/import", {
      provider: "generic",
      entries: Array.from({ length: 5000 }, (_, i) => benchEntry(i)),
    });
    if (imp.json.imported !== 5000)
      throw new Error(`import: ${JSON.stringify(imp.json).slice(0, 300)}`);
    const pushMs = median(push);
    row("push of 100 mutations (90 upd, 10 del)", `median ${fmt(pushMs)} ms`);
    row("import of 5,000", `${fmt(imp.ms, 0)} ms${timing(imp.headers)}`);
    summary.push({
      n,
      delta: deltaRatio,
      match: matchPaired.p99,
      create: createPaired.rps,
      createRps: create.rps,
      push: pushMs,
      imp: imp.ms,
      full: growthMiB,
      heap: heapMiB,
      floor,
    });
  }

  console.log(
    "\nsummary (targets: delta <= 1.5x trivial single; match p99 <= 1.5x trivial p99; create >= 0.7x trivial req/s; flat across sizes; full pull growth < 50 MiB)",
  );
  console.log(
    "entries    delta/trivial  match p99/trivial  create/trivial  create req/s  push 100 ms  import 5k ms  full pull MiB  heap MiB",
  );
  for (const s of summary) {
    console.log(
      `${String(s.n).padEnd(10)} ${fmt(s.delta).padStart(13)}  ${fmt(s.match).padStart(17)}  ${fmt(s.create).padStart(14)}  ${fmt(s.createRps, 0).padStart(12)}  ${fmt(s.push, 1).padStart(11)}  ${fmt(s.imp, 0).padStart(12)}  ${fmt(s.full, 1).padStart(13)}  ${fmt(s.heap, 1).padStart(8)}`,
    );
  }
  // What no route that reads D1 can go below on this runtime: set beside delta (single latency) and
  // create (throughput), it tells the D1 round trip apart from the route's own work.
  console.log("\nfloor (one D1 read, no body: the match revalidation's 304)");
  console.log("entries    single/trivial  req/s/trivial   delta/floor  create/floor");
  for (const s of summary) {
    console.log(
      `${String(s.n).padEnd(10)} ${fmt(s.floor.single).padStart(14)}  ${fmt(s.floor.rps).padStart(13)}  ${fmt(s.delta / s.floor.single).padStart(12)}  ${fmt(s.create / s.floor.rps).padStart(12)}`,
    );
  }
} finally {
  heap?.close();
  worker.stop();
}
