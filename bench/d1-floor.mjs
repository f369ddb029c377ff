// The floor under a full pull on this machine (docs/scale.md, "Full pull"): what workerd and local
// D1 take to hand a Worker every row of a vault, with nothing of ours in the way. A bare Worker
// (written to bench/out, bound to a D1 seeded with the same rows as bench/peer-sync.mjs) answers
//   /rows   one SELECT of the sync columns, the rows as objects, JSON.stringify'd whole;
//   /sqljson one SELECT in which SQLite builds the whole answer (json_object per row, group_concat);
//   /count  one SELECT count(*) of the same rows (the round trip and the scan, no row leaves SQLite);
// beside our GET /api/passwords/sync (both framings) on its own wrangler dev with the same seed.
// Medians of alternating repetitions, timed by the same node:http loop.
//   node bench/d1-floor.mjs [--sizes 10000] [--runs 5] [--port 8784]
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { benchSession, fmt, seedEntries, startWorker } from "./lib/harness.mjs";

const { values } = parseArgs({ options: { sizes: { type: "string", default: "10000" }, runs: { type: "string", default: "5" }, port: { type: "string", default: "8784" } } });
const SIZES = values.sizes.split(",").map(Number);
const RUNS = Number(values.runs);
const PORT = Number(values.port);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const COLS = "id, name, website, url, username, tags, encryption_version, wrapped_item_key, encrypted_data, has_totp, has_passkey, created_at, updated_at";
const WORKER = `export default { async fetch(req, env) {
  const u = new URL(req.url); const user = u.searchParams.get("user");
  const where = "FROM passwords WHERE user_id = ? AND deleted_at IS NULL";
  if (u.pathname === "/count") return Response.json(await env.DB.prepare("SELECT count(*) AS n " + where).bind(user).first());
  if (u.pathname === "/rows") { const { results } = await env.DB.prepare("SELECT ${COLS} " + where).bind(user).all(); return new Response(JSON.stringify({ changes: results }), { headers: { "content-type": "application/json" } }); }
  if (u.pathname === "/sqljson") { const r = await env.DB.prepare("SELECT '{\\"changes\\":[' || group_concat(json_object('id', id, 'name', name, 'website', website, 'url', url, 'tags', json(tags), 'encryption_version', encryption_version, 'wrapped_item_key', wrapped_item_key, 'encrypted_data', encrypted_data, 'created_at', created_at, 'updated_at', updated_at), ',') || ']}' AS body " + where).bind(user).first(); return new Response(r.body, { headers: { "content-type": "application/json" } }); }
  return new Response("not found", { status: 404 });
} };`;

function get(base, path, headers = {}) {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    http
      .get(`${base}${path}`, { headers, agent }, (res) => {
        let bytes = 0;
        res.on("data", (d) => (bytes += d.length));
        res.on("end", () => (res.statusCode === 200 ? resolve({ ms: performance.now() - t0, bytes }) : reject(new Error(`${path}: ${res.statusCode}`))));
      })
      .on("error", reject);
  });
}

async function startBare(port) {
  const dir = join(ROOT, "bench", "out", `d1-floor-${port}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "index.js"), WORKER);
  writeFileSync(
    join(dir, "wrangler.toml"),
    `name = "d1-floor"\nmain = "index.js"\ncompatibility_date = "2025-01-01"\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "floor"\ndatabase_id = "00000000-0000-0000-0000-000000000001"\nmigrations_dir = "${join(ROOT, "migrations")}"\n`,
  );
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false" };
  const state = join(dir, "state");
  const npx = (args) => execFileSync("npx", ["wrangler", ...args, "-c", join(dir, "wrangler.toml"), "--persist-to", state], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"], env });
  npx(["d1", "migrations", "apply", "DB", "--local"]);
  const child = spawn("npx", ["wrangler", "dev", "-c", join(dir, "wrangler.toml"), "--port", String(port), "--ip", "127.0.0.1", "--persist-to", state, "--inspector-port", String(port + 1)], { cwd: ROOT, stdio: "ignore", env, detached: true });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/count?user=x`)).ok) break;
    } catch {}
    if (i === 240) throw new Error("the bare worker did not start");
    await new Promise((r) => setTimeout(r, 500));
  }
  return { base, sql: (file) => npx(["d1", "execute", "DB", "--local", "--file", file, "--yes"]), stop: () => process.kill(-child.pid, "SIGTERM") };
}

const ours = await startWorker({ port: PORT, name: `d1-floor-ours-${PORT}`, vars: { MAX_PASSWORDS_PER_USER: "1000000" } });
let bare;
try {
  bare = await startBare(PORT + 10);
  for (const n of SIZES) {
    const user = `floor-${n}`;
    seedEntries(ours, user, n, `d1-floor-seed-${PORT}-${n}`, { unique: n <= 10_000 });
    // The same SQL file into the bare worker's database.
    bare.sql(join(ROOT, "bench", "out", `d1-floor-seed-${PORT}-${n}.sql`));
    const { auth } = await benchSession(ours.base, user);
    const cases = {
      "bare: SELECT count(*)": () => get(bare.base, `/count?user=${user}`),
      "bare: SELECT rows, stringify": () => get(bare.base, `/rows?user=${user}`),
      "bare: SQLite builds the JSON": () => get(bare.base, `/sqljson?user=${user}`),
      "ours: full pull (JSON)": () => get(ours.base, "/api/passwords/sync", auth),
      "ours: full pull (NDJSON)": () => get(ours.base, "/api/passwords/sync", { ...auth, accept: "application/x-ndjson" }),
    };
    const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    const bytes = {};
    for (const run of Object.values(cases)) await run(); // warm
    for (let r = 0; r < RUNS; r++) {
      const keys = Object.keys(cases);
      for (const k of r % 2 ? keys.reverse() : keys) {
        const res = await cases[k]();
        times[k].push(res.ms);
        bytes[k] = res.bytes;
      }
    }
    console.log(`\n--- ${n.toLocaleString("en")} entries, medians of ${RUNS} ---`);
    for (const k of Object.keys(cases)) console.log(`${k.padEnd(34)} ${fmt(median(times[k]), 0).padStart(6)} ms   ${fmt(bytes[k] / 1024, 0)} KiB`);
  }
} finally {
  bare?.stop();
  ours.stop();
}
