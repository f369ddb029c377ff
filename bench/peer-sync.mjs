// Full pull beside the peer (docs/scale.md, "Full pull"): our GET /api/passwords/sync without a
// cursor and NodeWarden's GET /api/sync, each under this repo's wrangler dev on its own port, over
// vaults of the same size, timed by the same client loop (node:http, keep-alive, body read whole)
// in alternating repetitions, so both see the same moment of this shared machine. Also prints the
// bytes on the wire with and without Accept-Encoding, and, for our side, the runtime's memory
// growth during the pull, and whether the page-framed answer came whole (decoded and counted).
//   node bench/peer-sync.mjs [--peer /tmp/nodewarden] [--sizes 1000,10000] [--runs 5] [--port 8780] [--peer-port 8790]
// --peer names a checkout of NodeWarden (github.com/shuaiplus/NodeWarden, measured at 246c73a).
// The bench prepares that directory for a local run and changes nothing else: a wrangler.bench.toml
// without the web app's build step and cron, an empty dist/, a .dev.vars with a random JWT_SECRET,
// its per-user API budget raised from 200 a minute (src/config/limits.ts) so the repetitions are
// not refused, and its one npm dependency the worker imports (fflate) installed under .bench-deps.
// Its sync answer is cached per revision for 30 s (caches.default); the first pull of a size is
// printed apart ("cold") and the repetitions are what a client pulling again within 30 s gets.
// Without --peer only our figures are printed.
// Beside the pull, at each size (lib/peer-ratios.mjs): create at --connections for --seconds, ours
// against the peer's POST /api/ciphers, in --pairs alternating wrk runs, and one at a time (p50);
// our autofill match p50 and p99 against our trivial route (lib/paired.mjs, as bench/hot-paths.mjs);
// catch-up on 100 changes, the peer's full sync against our delta pull. Ends with one table of the
// ratios at the largest size, and the load average at start and end (the machine may be shared).
//   [--seconds 5] [--connections 10] [--pairs 3]; the default sizes are 1,000 and 10,000 (--sizes
//   1000,10000,100000 adds the 100,000 pull of docs/scale.md).
import { parseArgs } from "node:util";
import { execFileSync, spawn } from "node:child_process";
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import {
  b64,
  benchSession,
  ensureWrk,
  fmt,
  memKiB,
  seedEntries,
  startWorker,
  workerdPids,
} from "./lib/harness.mjs";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { peerRatios, printRatioTable } from "./lib/peer-ratios.mjs";

const { values } = parseArgs({
  options: {
    peer: { type: "string" },
    sizes: { type: "string", default: "1000,10000" },
    runs: { type: "string", default: "5" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    pairs: { type: "string", default: "3" },
    port: { type: "string", default: "8780" },
    "peer-port": { type: "string", default: "8790" },
  },
});
const SIZES = values.sizes.split(",").map(Number);
const RUNS = Number(values.runs);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (label, text) => console.log(`${label.padEnd(34)} ${text}`);

/**
 * One GET through node:http with keep-alive: time to the last byte, bytes on the wire, headers;
 * with `keep`, also the body as it came (still coded).
 */
function getter(base, headers) {
  const agent = new http.Agent({ keepAlive: true });
  return (path, extra = {}, keep = false) =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = http.request(
        `${base}${path}`,
        { headers: { ...headers, ...extra }, agent },
        (res) => {
          let bytes = 0;
          let first = NaN;
          const chunks = [];
          res.on(
            "data",
            (d) => (
              (bytes += d.length),
              keep && chunks.push(d),
              Number.isNaN(first) && (first = performance.now() - t0)
            ),
          );
          const body = () => (keep ? Buffer.concat(chunks) : null);
          res.on("end", () =>
            res.statusCode === 200
              ? resolve({
                  ms: performance.now() - t0,
                  first,
                  bytes,
                  headers: res.headers,
                  body: body(),
                })
              : reject(new Error(`${path}: ${res.statusCode}`)),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
}

/** Makes a NodeWarden checkout runnable under our wrangler (files inside that directory only). */
function preparePeer(dir) {
  const toml = readFileSync(join(dir, "wrangler.toml"), "utf8")
    .replace(/^\[build\]\ncommand = .*$/m, "")
    .replace(/^\[triggers\]\ncrons = .*$/m, "");
  writeFileSync(join(dir, "wrangler.bench.toml"), toml);
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(join(dir, "dist", "index.html"), "<!doctype html>");
  const secret = randomBytes(32).toString("hex");
  writeFileSync(join(dir, ".dev.vars"), `JWT_SECRET=${secret}\n`);
  const limits = join(dir, "src", "config", "limits.ts");
  writeFileSync(
    limits,
    readFileSync(limits, "utf8").replace(
      /apiRequestsPerMinute: \d+/,
      "apiRequestsPerMinute: 1000000000",
    ),
  );
  if (!existsSync(join(dir, "node_modules", "fflate"))) {
    const deps = join(dir, ".bench-deps");
    mkdirSync(deps, { recursive: true });
    writeFileSync(join(deps, "package.json"), '{"name":"peer-bench-deps","private":true}');
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "fflate@0.8.2"], {
      cwd: deps,
      stdio: "ignore",
    });
    if (!existsSync(join(dir, "node_modules")))
      symlinkSync(join(deps, "node_modules"), join(dir, "node_modules"));
  }
  return secret;
}

async function startPeer(dir, port) {
  const secret = preparePeer(dir);
  const config = join(dir, "wrangler.bench.toml");
  const state = join(dir, `.bench-state-${port}`);
  rmSync(state, { recursive: true, force: true });
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false" };
  const wrangler = (args) =>
    execFileSync("npx", ["wrangler", ...args, "-c", config, "--persist-to", state], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env,
    });
  wrangler([
    "d1",
    "execute",
    "DB",
    "--local",
    "--file",
    join(dir, "migrations", "0001_init.sql"),
    "--yes",
  ]);
  const child = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "-c",
      config,
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      "--inspector-port",
      String(port + 1),
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env,
      detached: true,
    },
  );
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/version`)).status < 500) break;
    } catch {}
    if (i === 120) throw new Error(`the peer did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    base,
    secret,
    sql: (file) => wrangler(["d1", "execute", "DB", "--local", "--file", file, "--yes"]),
    stop: () => process.kill(-child.pid, "SIGTERM"),
  };
}

/**
 * What the page-framed answer held once decoded: its JSON bytes, pages, changes and whether it
 * ended with {complete: true}, so a small figure on the wire is told apart from a cut answer. The
 * 100,000-entry vault compresses far more than the 10,000 one because its envelopes repeat (one per
 * 100 rows, `seedEntries`), not because anything is missing: this line says which.
 */
function completeness(res, n) {
  const text = (
    res.headers["content-encoding"] === "gzip" ? gunzipSync(res.body) : res.body
  ).toString("utf8");
  const lines = text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const pages = lines.filter((l) => Array.isArray(l.changes));
  const changes = pages.reduce((sum, l) => sum + l.changes.length, 0);
  const complete = lines.at(-1)?.complete === true;
  const verdict = complete && changes === n ? "whole" : "CUT SHORT";
  return `${fmt(text.length / 1024, 0)} KiB of JSON, ${pages.length} pages, ${changes.toLocaleString("en")} of ${n.toLocaleString("en")} changes, ${complete ? "ends with {complete: true}" : "no {complete: true}"}: ${verdict}`;
}

const enc = () => `2.${b64(16)}|${b64(32)}|${b64(32)}`;
const b64url = (s) => Buffer.from(s).toString("base64url");

/** A user and `n` login ciphers in the peer's tables, and an access token it accepts (HS256, its claims). */
function seedPeer(peer, n) {
  const user = randomUUID();
  const now = new Date().toISOString();
  const stmts = [
    `INSERT INTO users (id,email,name,master_password_hash,key,kdf_type,kdf_iterations,security_stamp,role,status,verify_devices,created_at,updated_at) VALUES ('${user}','peer-${n}@example.test','Peer','x','${enc()}',0,600000,'stamp','admin','active',0,'${now}','${now}')`,
  ];
  let rows = [];
  for (let i = 0; i < n; i++) {
    const data = {
      type: 1,
      name: enc(),
      notes: null,
      login: { username: enc(), password: enc(), uris: [{ uri: enc(), match: null }], totp: null },
      fields: null,
      passwordHistory: null,
      favorite: false,
      reprompt: 0,
    };
    const ts = new Date(Date.now() - n + i).toISOString();
    rows.push(
      `('${randomUUID()}','${user}',1,NULL,'${data.name}',NULL,0,'${JSON.stringify(data)}',0,NULL,'${ts}','${ts}')`,
    );
    if (rows.length === 50 || i === n - 1) {
      stmts.push(
        `INSERT INTO ciphers (id,user_id,type,folder_id,name,notes,favorite,data,reprompt,key,created_at,updated_at) VALUES ${rows.join(",")}`,
      );
      rows = [];
    }
  }
  const file = join(ROOT, "bench", "out", `peer-seed-${values["peer-port"]}-${n}.sql`);
  writeFileSync(file, stmts.join(";\n") + ";\n");
  peer.sql(file);
  const iat = Math.floor(Date.now() / 1000);
  const claims = {
    sub: user,
    email: `peer-${n}@example.test`,
    name: "Peer",
    sstamp: "stamp",
    email_verified: true,
    amr: ["Application"],
    iat,
    exp: iat + 7200,
    iss: "nodewarden",
    premium: true,
  };
  const unsigned = `${b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${b64url(JSON.stringify(claims))}`;
  return `${unsigned}.${createHmac("sha256", peer.secret).update(unsigned).digest("base64url")}`;
}

const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const load = { start: loadavg(), end: "" };
console.log(`load average at start: ${load.start} (shared machine: figures indicative only)`);

ensureWrk();
// State directories named by port, so two runs side by side do not share (and wipe) one.
const worker = await startWorker({
  port: Number(values.port),
  name: `peer-sync-${values.port}`,
  vars: { MAX_PASSWORDS_PER_USER: "1000000" },
});
let peer;
try {
  if (values.peer) peer = await startPeer(values.peer, Number(values["peer-port"]));
  const { runtime } = workerdPids(Number(values.port));
  const summary = [];
  const ratios = [];
  for (const n of SIZES) {
    // Every envelope its own random bytes up to 10,000 entries, as real ciphertext is, so the
    // compressed figure is honest; the 100,000 vault repeats one per 100 rows to keep its SQL small.
    seedEntries(worker, `peer-${n}`, n, `peer-sync-seed-${values.port}-${n}`, {
      unique: n <= 10_000,
    });
    const session = await benchSession(worker.base, `peer-${n}`);
    const ours = getter(worker.base, session.auth);
    const peerAuth = peer ? { Authorization: `Bearer ${seedPeer(peer, n)}` } : null;
    const theirs = peer ? getter(peer.base, peerAuth) : null;
    console.log(`\n--- vault of ${n.toLocaleString("en")} entries ---`);
    const ourCold = await ours("/api/passwords/sync");
    const theirCold = theirs ? await theirs("/api/sync") : null;
    row(
      "first pull (cold)",
      `ours ${fmt(ourCold.ms, 0)} ms` + (theirCold ? `   peer ${fmt(theirCold.ms, 0)} ms` : ""),
    );
    const a = [];
    const b = [];
    const firstByte = [];
    const grew = [];
    for (let r = 0; r < RUNS; r++) {
      // Alternating, and each side first in turn.
      const order = r % 2 === 0 ? ["ours", "peer"] : ["peer", "ours"];
      for (const side of order) {
        if (side === "peer" && theirs) b.push((await theirs("/api/sync")).ms);
        if (side !== "ours") continue;
        const before = memKiB(runtime).rss;
        let peak = before;
        const sampler = setInterval(() => (peak = Math.max(peak, memKiB(runtime).rss)), 5);
        const res = await ours("/api/passwords/sync");
        clearInterval(sampler);
        a.push(res.ms);
        firstByte.push(res.first);
        grew.push((peak - before) / 1024);
      }
    }
    // The page-framed answer the web client and the extension read (one JSON text per line), timed
    // the same way, and its bytes with gzip asked (the route names the coding, the runtime applies it).
    const NDJSON = { accept: "application/x-ndjson" };
    const pagesMs = [];
    for (let r = 0; r < RUNS; r++) pagesMs.push((await ours("/api/passwords/sync", NDJSON)).ms);
    const pagesGz = await ours(
      "/api/passwords/sync",
      { ...NDJSON, "accept-encoding": "gzip" },
      true,
    );
    const pagesPlain = await ours("/api/passwords/sync", NDJSON);
    const plain = await ours("/api/passwords/sync");
    const gz = await ours("/api/passwords/sync", { "accept-encoding": "gzip" });
    const br = await ours("/api/passwords/sync", { "accept-encoding": "br, gzip" });
    const peerGz = theirs ? await theirs("/api/sync", { "accept-encoding": "gzip" }) : null;
    const s = {
      n,
      ours: median(a),
      peer: theirs ? median(b) : NaN,
      first: median(firstByte),
      grew: Math.max(...grew),
    };
    summary.push(s);
    row(
      "full pull, median",
      `ours ${fmt(s.ours, 0)} ms (first byte ${fmt(s.first, 0)} ms)` +
        (theirs ? `   peer ${fmt(s.peer, 0)} ms   ours/peer ${fmt(s.ours / s.peer)}` : ""),
    );
    row("runtime RSS growth (ours, max)", `${fmt(s.grew, 1)} MiB`);
    const wire = (r) =>
      `${fmt(r.bytes / 1024, 0)} KiB (${r.headers["content-encoding"] ?? "identity"}, ${fmt(r.ms, 0)} ms)`;
    row("bytes on the wire, ours", `plain ${wire(plain)}   gzip ${wire(gz)}   br ${wire(br)}`);
    if (peerGz) row("bytes on the wire, peer", `gzip asked: ${wire(peerGz)}`);
    row(
      "page-framed (NDJSON), median",
      `ours ${fmt(median(pagesMs), 0)} ms` +
        (theirs ? `   ours/peer ${fmt(median(pagesMs) / s.peer)}` : ""),
    );
    row("bytes on the wire, page-framed", `plain ${wire(pagesPlain)}   gzip ${wire(pagesGz)}`);
    row("page-framed answer, decoded", completeness(pagesGz, n));
    ratios.push(
      await peerRatios({
        base: worker.base,
        session,
        userId: `peer-${n}`,
        n,
        peer: peer ? { base: peer.base, auth: peerAuth, pull: theirs } : null,
        opts: {
          seconds: Number(values.seconds),
          connections: Number(values.connections),
          pairs: Number(values.pairs),
          runs: RUNS,
          tag: `${values.port}-${n}`,
        },
        row,
      }),
    );
  }
  console.log(
    "\nentries    ours ms   peer ms   ours/peer   RSS growth MiB   (targets: 10,000 <= 0.5x peer; 100,000 <= 1,200 ms and < 50 MiB)",
  );
  for (const s of summary)
    console.log(
      `${String(s.n).padEnd(10)} ${fmt(s.ours, 0).padStart(7)}   ${fmt(s.peer, 0).padStart(7)}   ${fmt(s.ours / s.peer).padStart(9)}   ${fmt(s.grew, 1).padStart(14)}`,
    );
  load.end = loadavg();
  printRatioTable(summary, ratios, load);
} finally {
  worker.stop();
  peer?.stop();
}
