// Where the worker's heap grows (docs/decisions/hardening.md, "Hardening: limits, abuse and failure", soak): heap snapshots of the worker isolate through
// wrangler's inspector before and after N requests of one route, diffed by node type and name
// (a snapshot holds only what is reachable: V8 collects all garbage before taking it).
//   node bench/heap-diff.mjs [--path /api/passwords?limit=50] [--n 2000] [--users 1] [--concurrency 1]
//                            [--port 8710] [--inspector-port 8711] [--keep] [--var NAME=value]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { benchSession, startWorker, workerHeapProbe } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    path: { type: "string", default: "/api/passwords?limit=50" },
    n: { type: "string", default: "2000" },
    port: { type: "string", default: "8710" },
    "inspector-port": { type: "string", default: "8711" },
    var: { type: "string", multiple: true, default: [] },
    keep: { type: "boolean", default: false },
    users: { type: "string", default: "1" },
    concurrency: { type: "string", default: "1" },
  },
});
const PORT = Number(values.port);
const INSPECTOR = Number(values["inspector-port"]);
const N = Number(values.n);
const vars = Object.fromEntries(
  values.var.map((v) => [v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1)]),
);

/** Per node type and name: count and self size; and the total self size of the reachable heap. */
function summarise(snap) {
  const f = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const W = f.length;
  const iType = f.indexOf("type"),
    iName = f.indexOf("name"),
    iSize = f.indexOf("self_size");
  const by = new Map();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += W) {
    const type = types[snap.nodes[i + iType]];
    let name = snap.strings[snap.nodes[i + iName]];
    if (type === "string" || type === "concatenated string" || type === "sliced string")
      name = `"${name.slice(0, 60)}"`;
    const key = `${type} ${name}`;
    const e = by.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += snap.nodes[i + iSize];
    by.set(key, e);
    total += snap.nodes[i + iSize];
  }
  return { by, total };
}

const worker = await startWorker({ port: PORT, name: "heap-diff", vars, inspectorPort: INSPECTOR });
try {
  const users = [];
  for (let i = 0; i < Number(values.users); i++) {
    const s = await benchSession(worker.base, `heap-${Date.now()}-${i}`);
    await s.call("GET", "/api/passwords/sync");
    users.push(s);
  }
  const probe = await workerHeapProbe(INSPECTOR, worker.base);
  const run = async (n) => {
    let i = 0;
    const lane = async () => {
      while (i < n) await users[i++ % users.length].call("GET", values.path);
    };
    await Promise.all(Array.from({ length: Number(values.concurrency) }, lane));
  };
  await run(200);
  const h0 = await probe.usedAfterGc();
  const a = await probe.snapshot();
  await run(N);
  const h1 = await probe.usedAfterGc();
  const b = await probe.snapshot();
  if (values.keep) {
    writeFileSync("bench/out/heap-a.heapsnapshot", JSON.stringify(a));
    writeFileSync("bench/out/heap-b.heapsnapshot", JSON.stringify(b));
  }
  console.log(
    `heap after GC: ${(h0 / 1048576).toFixed(2)} MiB -> ${(h1 / 1048576).toFixed(2)} MiB over ${N} requests (${((h1 - h0) / N).toFixed(0)} B/request)`,
  );
  const A = summarise(a),
    B = summarise(b);
  console.log(
    `reachable heap in the snapshots: ${(A.total / 1048576).toFixed(2)} MiB -> ${(B.total / 1048576).toFixed(2)} MiB (${((B.total - A.total) / N).toFixed(0)} B/request)`,
  );
  const rows = [...B.by].map(([k, e]) => ({
    k,
    dc: e.count - (A.by.get(k)?.count ?? 0),
    ds: e.size - (A.by.get(k)?.size ?? 0),
  }));
  rows.sort((x, y) => y.ds - x.ds);
  for (const r of rows.slice(0, 40))
    console.log(
      `${String(r.ds).padStart(10)} B ${String(r.dc).padStart(7)} × ${r.k.slice(0, 110)}`,
    );
  probe.close();
} finally {
  worker.stop();
}
