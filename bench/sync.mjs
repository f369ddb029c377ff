// Sync bench (docs/decisions/sync.md, "Sync: delta sync, import, export") against a real `wrangler dev`: a 10,000-entry vault seeded through the import
// endpoint, then full pull (time, bytes), delta pull after 100 changes, push of 100 mutations and an
// import of 5,000 entries. Each figure is the median of --runs runs, with the fastest and slowest.
// Requests go through node:http with keep-alive: undici's fetch alone spends ~0.6 s reading a 7 MiB
// body on this machine, which would measure the client rather than the service.
//   node bench/sync.mjs [--runs 5] [--port 8730]
import { parseArgs } from "node:util";
import { b64, benchEntry, benchSession, fmt, startWorker } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, port: { type: "string", default: "8730" } },
});
const RUNS = Number(values.runs);

const worker = await startWorker({ port: Number(values.port), name: "sync" });
try {
  const session = (sub) => benchSession(worker.base, sub);
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
  };
  const line = (label, ms, extra = "", target) => {
    const st = stats(ms);
    const verdict =
      target === undefined
        ? ""
        : st.median < target
          ? `  (target < ${target} ms: met)`
          : `  (target < ${target} ms: MISSED)`;
    console.log(
      `${label.padEnd(40)} median ${fmt(st.median, 1).padStart(8)} ms  min ${fmt(st.min, 1).padStart(8)}  max ${fmt(st.max, 1).padStart(8)}${extra}${verdict}`,
    );
  };

  const owner = await session("bench-sync-owner");
  const seedStart = performance.now();
  for (let part = 0; part < 2; part++) {
    const r = await owner.call("POST", "/api/passwords/import", {
      provider: "generic",
      entries: Array.from({ length: 5000 }, (_, i) => benchEntry(part * 5000 + i)),
    });
    if (r.json.imported !== 5000)
      throw new Error(`seed import: ${JSON.stringify(r.json).slice(0, 300)}`);
  }
  console.log(
    `seeded 10,000 entries through POST /api/passwords/import in ${fmt((performance.now() - seedStart) / 1000, 2)} s`,
  );

  const full = [];
  let fullBytes = 0;
  let cursor;
  for (let i = 0; i < RUNS; i++) {
    const r = await owner.call("GET", "/api/passwords/sync");
    if (r.json.changes.length !== 10_000)
      throw new Error(`full pull returned ${r.json.changes.length}`);
    full.push(r.ms);
    fullBytes = r.bytes;
    cursor = r.json.serverTimestamp;
  }
  line("full pull, 10,000 entries", full, `  ${fmt(fullBytes / 1024 / 1024, 2)} MiB`, 1000);

  const ids = (await owner.call("GET", "/api/passwords/sync")).json.changes.map((c) => c.id);
  let round = 0;
  const mutations = (n) => {
    round++;
    const stamp = new Date(Date.now() + round).toISOString();
    return Array.from({ length: n }, (_, k) => {
      const id = ids[(round * 100 + k) % ids.length];
      return k % 10 === 9
        ? { action: "delete", id, clientUpdatedAt: stamp }
        : {
            action: "update",
            id,
            clientUpdatedAt: stamp,
            data: {
              name: `Edited ${round}.${k}`,
              encrypted_data: b64(300),
              wrapped_item_key: b64(40),
              encryption_version: 3,
            },
          };
    });
  };

  const push = [];
  const delta = [];
  let deltaBytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const before = (
      await owner.call("GET", `/api/passwords/sync?since=${encodeURIComponent(cursor)}`)
    ).json.serverTimestamp;
    const p = await owner.call("POST", "/api/passwords/sync", { mutations: mutations(100) });
    const applied = p.json.results.filter((r) => r.status === "applied").length;
    if (applied !== 100) throw new Error(`push applied ${applied} of 100`);
    push.push(p.ms);
    const d = await owner.call("GET", `/api/passwords/sync?since=${encodeURIComponent(before)}`);
    if (d.json.changes.length !== 100)
      throw new Error(`delta pull returned ${d.json.changes.length} changes`);
    delta.push(d.ms);
    deltaBytes = d.bytes;
    cursor = d.json.serverTimestamp;
  }
  line("push of 100 mutations (90 upd, 10 del)", push, "", 200);
  line("delta pull, 100 changes in 10,000", delta, `  ${fmt(deltaBytes / 1024, 1)} KiB`, 50);

  const empty = [];
  for (let i = 0; i < RUNS; i++) {
    const d = await owner.call("GET", `/api/passwords/sync?since=${encodeURIComponent(cursor)}`);
    empty.push(d.ms);
    cursor = d.json.serverTimestamp;
  }
  line("delta pull, nothing changed", empty);

  const creates = [];
  const fresh = await session(`bench-sync-push-${Date.now()}`);
  for (let i = 0; i < RUNS; i++) {
    const stamp = new Date().toISOString();
    const batch = Array.from({ length: 100 }, (_, k) => ({
      action: "create",
      id: crypto.randomUUID(),
      clientUpdatedAt: stamp,
      data: { ...benchEntry(k), encryption_version: 3 },
    }));
    const p = await fresh.call("POST", "/api/passwords/sync", { mutations: batch });
    if (p.json.results.some((r) => r.status !== "applied")) throw new Error("create push failed");
    creates.push(p.ms);
  }
  line("push of 100 creates", creates, "", 200);

  const imports = [];
  const payload = {
    provider: "generic",
    entries: Array.from({ length: 5000 }, (_, i) => benchEntry(i)),
  };
  const payloadBytes = Buffer.byteLength(JSON.stringify(payload));
  for (let i = 0; i < RUNS; i++) {
    const u = await session(`bench-sync-import-${Date.now()}-${i}`);
    const r = await u.call("POST", "/api/passwords/import", payload);
    if (r.json.imported !== 5000)
      throw new Error(`import: ${JSON.stringify(r.json).slice(0, 300)}`);
    imports.push(r.ms);
  }
  line(
    "import of 5,000 entries (fresh vault)",
    imports,
    `  ${fmt(payloadBytes / 1024 / 1024, 2)} MiB body`,
    5000,
  );
} finally {
  worker.stop();
}
