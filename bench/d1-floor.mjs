// The floor under a full pull on this machine (docs/scale.md, "Full pull"): what workerd and local
// D1 (miniflare's SQLite) take to hand a Worker every row of a vault, with nothing of ours in the
// way, each cost alone. A bare Worker (written to bench/out, bound to a D1 seeded with the same rows
// as bench/peer-sync.mjs) reads the rows page by page on the same (user_id, change_seq, id) index
// as our pull (one statement over 100,000 rows returns a single string that the local D1 cannot
// hand over: a 500), and answers
//   /count       one SELECT count(*) of the rows: one round trip and the scan, no row leaves SQLite;
//   /read        every row as objects (the sync columns), page by page, dropped: the pure D1 reads;
//   /readjson    every page as one JSON text built by SQLite (json_object, group_concat), dropped:
//                what our pull reads;
//   /stringify   /read, and each page JSON.stringify'd and dropped: minus /read, the serialising;
//   /write       as many bytes as our answer, from one string made once, through a ReadableStream
//                (a TextEncoder per chunk, as ours): the writing to the response alone, no D1;
//   /stream      /readjson's pages written to the response with `ahead` reads in flight: the
//                least a paged pull can do;
// beside our GET /api/passwords/sync (both framings) on its own wrangler dev with the same seed.
// Each page is `rows` rows (default 1,300, about 1 MiB of JSON, our pull's largest page); with
// --rows 400,1300,4000 the SQLite-built pages are also read at the other sizes (the cost per read).
// Medians of alternating repetitions, timed by the same node:http loop, and the load average.
//   node bench/d1-floor.mjs [--sizes 10000,100000] [--runs 5] [--rows 1300] [--port 8784] [--only floor]
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { benchSession, fmt, seedEntries, startWorker } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    runs: { type: "string", default: "5" },
    rows: { type: "string", default: "1300" },
    port: { type: "string", default: "8784" },
    only: { type: "string" },
  },
});
const SIZES = values.sizes.split(",").map(Number);
const RUNS = Number(values.runs);
const [ROWS, ...OTHER_ROWS] = values.rows.split(",").map(Number);
const PORT = Number(values.port);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const WORKER = String.raw`
const WHERE = "FROM passwords WHERE user_id = ?1 AND deleted_at IS NULL";
const AFTER = " AND (change_seq, id) > (?2, ?3) ORDER BY change_seq, id LIMIT ?4";
const COLS = "change_seq, id, name, website, url, username, tags, encryption_version, wrapped_item_key, encrypted_data, has_totp, has_passkey, created_at, updated_at";
const ROWS_SQL = "SELECT " + COLS + " " + WHERE + AFTER;
const CHANGE = "json_object('id', id, 'name', name, 'website', website, 'url', url, 'username', username, 'tags', json(tags), 'encryption_version', encryption_version, 'wrapped_item_key', wrapped_item_key, 'encrypted_data', encrypted_data, 'has_totp', json(CASE WHEN has_totp THEN 'true' ELSE 'false' END), 'has_passkey', json(CASE WHEN has_passkey THEN 'true' ELSE 'false' END), 'created_at', created_at, 'updated_at', updated_at, '_deleted', json('false'))";
const JSON_SQL = "SELECT group_concat(c, ',' ORDER BY change_seq, id) AS body, count(*) AS n, max(printf('%016d', change_seq) || id) AS last FROM (SELECT change_seq, id, " + CHANGE + " AS c " + WHERE + AFTER + ")";
let big = null;

async function rowsPage(env, user, after, limit) {
  const { results } = await env.DB.prepare(ROWS_SQL).bind(user, after.seq, after.id, limit).all();
  const last = results[results.length - 1];
  return { results, more: results.length === limit, end: last ? { seq: last.change_seq, id: last.id } : null };
}
async function jsonPage(env, user, after, limit) {
  const r = await env.DB.prepare(JSON_SQL).bind(user, after.seq, after.id, limit).first();
  if (!r || r.n === 0) return { body: null, n: 0, more: false, end: null };
  return { body: r.body, n: r.n, more: r.n === limit, end: { seq: Number(r.last.slice(0, 16)), id: r.last.slice(16) } };
}
const START = { seq: -1, id: "" };

export default { async fetch(req, env) {
  const u = new URL(req.url);
  const user = u.searchParams.get("user");
  const limit = Number(u.searchParams.get("rows") ?? 1300);
  const json = (o) => Response.json(o);
  if (u.pathname === "/count") return json(await env.DB.prepare("SELECT count(*) AS n " + WHERE).bind(user).first());
  if (u.pathname === "/read" || u.pathname === "/stringify") {
    let after = START, n = 0, pages = 0, chars = 0;
    for (;;) {
      const p = await rowsPage(env, user, after, limit);
      n += p.results.length; pages++;
      if (u.pathname === "/stringify") chars += JSON.stringify(p.results).length;
      if (!p.more) break;
      after = p.end;
    }
    return json({ n, pages, chars });
  }
  if (u.pathname === "/readjson") {
    let after = START, n = 0, pages = 0, chars = 0;
    for (;;) {
      const p = await jsonPage(env, user, after, limit);
      n += p.n; pages++; chars += p.body ? p.body.length : 0;
      if (!p.more) break;
      after = p.end;
    }
    return json({ n, pages, chars });
  }
  if (u.pathname === "/write") {
    const total = Number(u.searchParams.get("bytes"));
    const chunk = 1024 * 1024;
    if (big === null) big = "x".repeat(chunk);
    const encoder = new TextEncoder();
    let sent = 0;
    return new Response(new ReadableStream({ pull(c) {
      const k = Math.min(chunk, total - sent);
      c.enqueue(encoder.encode(k === chunk ? big : big.slice(0, k)));
      sent += k;
      if (sent >= total) c.close();
    } }, { highWaterMark: 0 }), { headers: { "content-type": "application/x-ndjson" } });
  }
  if (u.pathname === "/stream") {
    const ahead = Number(u.searchParams.get("ahead") ?? 1);
    const encoder = new TextEncoder();
    // Reads chained on the key of the page before; up to "ahead" of them in flight past the one sent.
    const queue = [];
    let tail = Promise.resolve({ more: true, end: START });
    const next = () => { tail = tail.then((p) => (p.more ? jsonPage(env, user, p.end, limit) : { more: false, body: null })); tail.catch(() => {}); queue.push(tail); };
    let first = true, done = false;
    return new Response(new ReadableStream({ async pull(c) {
      if (first) { for (let i = 0; i <= ahead; i++) next(); c.enqueue(encoder.encode('{"changes":[')); first = false; return; }
      const p = await queue.shift();
      if (p.body) { c.enqueue(encoder.encode(p.body)); c.enqueue(encoder.encode(",")); }
      if (p.more) { next(); return; }
      if (!done) { done = true; c.enqueue(encoder.encode("]}")); c.close(); }
    } }, { highWaterMark: 0 }), { headers: { "content-type": "application/json" } });
  }
  return new Response("not found", { status: 404 });
} };`;

function get(base, path, headers = {}) {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    http
      .get(`${base}${path}`, { headers, agent }, (res) => {
        let bytes = 0;
        const chunks = [];
        res.on("data", (d) => ((bytes += d.length), bytes < 4096 && chunks.push(d)));
        res.on("end", () => {
          if (res.statusCode !== 200)
            return reject(
              new Error(
                `${path}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`,
              ),
            );
          const head = Buffer.concat(chunks).toString();
          resolve({
            ms: performance.now() - t0,
            bytes,
            info: head.startsWith('{"n"') ? JSON.parse(head) : null,
          });
        });
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
  const npx = (args) =>
    execFileSync(
      "npx",
      ["wrangler", ...args, "-c", join(dir, "wrangler.toml"), "--persist-to", state],
      { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"], env },
    );
  npx(["d1", "migrations", "apply", "DB", "--local"]);
  const child = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "-c",
      join(dir, "wrangler.toml"),
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      "--inspector-port",
      String(port + 1),
    ],
    { cwd: ROOT, stdio: "ignore", env, detached: true },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/count?user=x`)).ok) break;
    } catch {}
    if (i === 240) throw new Error("the bare worker did not start");
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    base,
    sql: (file) => npx(["d1", "execute", "DB", "--local", "--file", file, "--yes"]),
    stop: () => process.kill(-child.pid, "SIGTERM"),
  };
}

const withOurs = values.only !== "floor";
const ours = withOurs
  ? await startWorker({
      port: PORT,
      name: `d1-floor-ours-${PORT}`,
      vars: { MAX_PASSWORDS_PER_USER: "1000000" },
    })
  : null;
let bare;
try {
  bare = await startBare(PORT + 10);
  for (const n of SIZES) {
    const user = `floor-${n}`;
    const seedName = `d1-floor-seed-${PORT}-${n}`;
    // The same SQL file into both databases (the bare one also when ours is not started).
    seedEntries(ours ?? bare, user, n, seedName, { unique: n <= 10_000 });
    if (ours) bare.sql(join(ROOT, "bench", "out", `${seedName}.sql`));
    const auth = ours ? (await benchSession(ours.base, user)).auth : null;
    const q = `user=${user}&rows=${ROWS}`;
    // The answer's size for /write: our spec-framed answer's bytes when ours runs, else /readjson's text.
    const size = ours
      ? (await get(ours.base, "/api/passwords/sync", auth)).bytes
      : (await get(bare.base, `/readjson?${q}`)).info.chars + 2 * n;
    const cases = {
      "bare: SELECT count(*)": () => get(bare.base, `/count?${q}`),
      "bare: read rows (objects)": () => get(bare.base, `/read?${q}`),
      "bare: read rows + stringify": () => get(bare.base, `/stringify?${q}`),
      "bare: read pages SQLite built": () => get(bare.base, `/readjson?${q}`),
      ...Object.fromEntries(
        OTHER_ROWS.map((r) => [
          `bare: read pages SQLite built, ${r} rows`,
          () => get(bare.base, `/readjson?user=${user}&rows=${r}`),
        ]),
      ),
      "bare: write the bytes, no D1": () => get(bare.base, `/write?bytes=${size}`),
      "bare: stream pages, 1 ahead": () => get(bare.base, `/stream?${q}&ahead=1`),
      "bare: stream pages, 2 ahead": () => get(bare.base, `/stream?${q}&ahead=2`),
      ...(ours
        ? {
            "ours: full pull (JSON)": () => get(ours.base, "/api/passwords/sync", auth),
            "ours: full pull (NDJSON)": () =>
              get(ours.base, "/api/passwords/sync", { ...auth, accept: "application/x-ndjson" }),
          }
        : {}),
    };
    const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    const last = {};
    for (const run of Object.values(cases)) await run(); // warm
    const load = [loadavg()[0]];
    for (let r = 0; r < RUNS; r++) {
      const keys = Object.keys(cases);
      for (const k of r % 2 ? keys.reverse() : keys) {
        const res = await cases[k]();
        times[k].push(res.ms);
        last[k] = res;
      }
      load.push(loadavg()[0]);
    }
    console.log(
      `\n--- ${n.toLocaleString("en")} entries, pages of ${ROWS} rows, medians of ${RUNS}, load average ${fmt(Math.min(...load), 1)}–${fmt(Math.max(...load), 1)} ---`,
    );
    for (const k of Object.keys(cases)) {
      const res = last[k];
      const what = res.info?.pages
        ? `${res.info.pages} reads, ${res.info.n.toLocaleString("en")} rows` +
          (res.info.chars ? `, ${fmt(res.info.chars / 1024, 0)} KiB of text` : "")
        : `${fmt(res.bytes / 1024, 0)} KiB sent`;
      console.log(`${k.padEnd(44)} ${fmt(median(times[k]), 0).padStart(6)} ms   ${what}`);
    }
    const m = (k) => median(times[k]);
    console.log(
      `${"serialising alone (stringify - read)".padEnd(44)} ${fmt(m("bare: read rows + stringify") - m("bare: read rows (objects)"), 0).padStart(6)} ms`,
    );
  }
} finally {
  bare?.stop();
  ours?.stop();
}
