// Shared bench harness: a real `wrangler dev` on its own port and state directory, seeding through
// local D1, and load from wrk (installed from Debian when missing). Prints figures; asserts nothing.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import http from "node:http";
import net from "node:net";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ensureDevVars, ROOT, signDevToken } from "../../scripts/lib/dev-identity.mjs";

export { signDevToken };

export function ensureWrk() {
  if (spawnSync("sh", ["-c", "command -v wrk"]).status === 0) return;
  execFileSync(
    "sh",
    [
      "-c",
      "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null",
    ],
    { stdio: "inherit" },
  );
}

/** Starts wrangler dev with fresh local state and waits until /api/health answers. */
export async function startWorker({ port, name, vars = {}, inspectorPort = 0 }) {
  await ensureDevVars();
  // wrangler.toml's [assets] directory must exist before wrangler dev starts.
  if (!existsSync(join(ROOT, "public", "index.html")))
    execFileSync("node", ["scripts/build-client.mjs"], { cwd: ROOT, stdio: "ignore" });
  const state = join(ROOT, "bench", "out", name);
  rmSync(state, { recursive: true, force: true });
  mkdirSync(state, { recursive: true });
  // Awaited, not run synchronously: the browser suite's global setup starts its Chromium beside
  // this, and a launch whose event loop is held for the minute or more the migrations take on a
  // loaded machine runs out its own timeout without ever spawning the browser.
  await new Promise((resolve, reject) => {
    const migrate = spawn(
      "npx",
      ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", state],
      {
        cwd: ROOT,
        stdio: ["ignore", "ignore", "inherit"],
        env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      },
    );
    migrate.on("error", reject);
    migrate.on("exit", (code, signal) =>
      code === 0
        ? resolve(undefined)
        : reject(new Error(`wrangler d1 migrations apply: exit ${code ?? signal}`)),
    );
  });
  const varArgs = Object.entries({ RATE_LIMIT_MULTIPLIER: "1000", ...vars }).flatMap(([k, v]) => [
    "--var",
    `${k}:${v}`,
  ]);
  const inspector = inspectorPort ? ["--inspector-port", String(inspectorPort)] : [];
  const child = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      ...inspector,
      ...varArgs,
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      detached: true,
    },
  );
  let log = "";
  if (process.env.BENCH_WORKER_LOG) {
    child.stdout.pipe(process.stderr);
    child.stderr.pipe(process.stderr);
  }
  // Also kept beside the state, so a test can read what the worker logged (worker.log).
  const logFile = join(state, "worker.log");
  const keep = (d) => {
    log += d;
    appendFileSync(logFile, d);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
    if (i === 119) throw new Error(`wrangler dev did not start:\n${log}`);
  }
  // wrangler's [build] watcher may rebuild the client and restart the worker just after it first
  // answers; requests during that restart fail. Wait until its output has been quiet for 3 s.
  const settled = async () => {
    for (let seen = log.length, quiet = 0, waited = 0; quiet < 6 && waited < 120; waited++) {
      await new Promise((r) => setTimeout(r, 500));
      quiet = log.length === seen ? quiet + 1 : 0;
      seen = log.length;
    }
    if (!(await fetch(`${base}/api/health`)).ok)
      throw new Error(`wrangler dev stopped answering:\n${log}`);
  };
  await settled();
  // Seeding SQL runs synchronously: nothing else waits on this process's event loop meanwhile.
  const npx = (args) =>
    execFileSync("npx", args, {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
  return {
    base,
    state,
    logFile,
    /** Waits again until the server's output has been quiet for 3 s (e.g. after public/ was rebuilt under it). */
    settled,
    /** Runs SQL against the same local D1 the worker uses. */
    sql(file) {
      npx([
        "wrangler",
        "d1",
        "execute",
        "DB",
        "--local",
        "--persist-to",
        state,
        "--file",
        file,
        "--yes",
      ]);
    },
    /**
     * Sets the niceness of the server's share of the machine (Linux's autogroup: the server runs in
     * a session of its own, and the scheduler splits the cores between sessions first, so while it
     * is busy the server has half of two cores whatever its threads' own niceness). Returns what the
     * kernel then says of the group, or null where the kernel has no autogroups.
     */
    niceness(n) {
      const file = `/proc/${child.pid}/autogroup`;
      if (!existsSync(file)) return null;
      writeFileSync(file, String(n));
      return readFileSync(file, "utf8").trim();
    },
    stop() {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {}
    },
  };
}

export function writeSql(name, statements) {
  const file = join(ROOT, "bench", "out", `${name}.sql`);
  writeFileSync(file, statements.join(";\n") + ";\n");
  return file;
}

const UNIT = { us: 0.001, ms: 1, s: 1000 };
const toMs = (s) => {
  const m = /^([\d.]+)(us|ms|s)$/.exec(s.trim());
  return m ? Number(m[1]) * UNIT[m[2]] : NaN;
};

/** wrk with latency distribution; returns requests/s and p50/p99 in milliseconds. */
export function wrk(url, headers, { seconds = 10, connections = 8, threads = 1, script } = {}) {
  const args = ["-t", String(threads), "-c", String(connections), "-d", `${seconds}s`, "--latency"];
  if (script) args.push("-s", script);
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  const out = execFileSync("wrk", [...args, url], { encoding: "utf8" });
  const pct = (p) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(out)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50: pct(50),
    p99: pct(99),
    non2xx,
    raw: out,
  };
}

export const fmt = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");

/**
 * wrangler dev runs two workerd processes: a small proxy that owns our port, and the runtime that
 * executes the worker (and miniflare's R2 and D1 simulators). Both are children of the same
 * wrangler process; the runtime is the sibling of the proxy.
 */
export function workerdPids(port) {
  const stat = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const procs = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        return cmd.includes("workerd")
          ? [{ pid: Number(pid), ppid: Number(stat(pid)[1]), cmd }]
          : [];
      } catch {
        return [];
      }
    });
  const proxy = procs.find((p) => p.cmd.includes(`127.0.0.1:${port}`));
  const runtime = procs.find((p) => proxy && p.ppid === proxy.ppid && p.pid !== proxy.pid);
  if (!proxy || !runtime) throw new Error("workerd processes not found");
  return { proxy: proxy.pid, runtime: runtime.pid };
}

/** The TCP ports a process listens on (its socket inodes matched against /proc/net/tcp{,6}). */
function listeningPorts(pid) {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return link.startsWith("socket:[") ? [link.slice(8, -1)] : [];
      } catch {
        return [];
      }
    }),
  );
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((table) =>
    readFileSync(table, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // State 0A is LISTEN.
      .filter((c) => c.length > 9 && c[3] === "0A" && inodes.has(c[9]))
      .map((c) => parseInt(c[1].split(":")[1], 16)),
  );
}

/**
 * The runtime's own socket for the worker (the one answering /api/health), behind wrangler dev's
 * reload proxy on `port`. wrangler 4.86's proxy parks a GET whose fetch to the runtime met a
 * network error until some other request arrives (workers-sdk #14593; from 4.114 the error is
 * raised instead, and can end wrangler dev itself, #15317): a page whose last scripts were parked
 * waited until the browser closed. Production has no such proxy, so the browser suite talks to the
 * runtime itself (docs/decisions/client.md, "Tests (`npm test`, second vitest run: `vitest.browser.config.mts`)").
 */
export async function runtimeEntry(port) {
  const { runtime } = workerdPids(port);
  for (const candidate of listeningPorts(runtime)) {
    try {
      const res = await fetch(`http://127.0.0.1:${candidate}/api/health`, {
        signal: AbortSignal.timeout(5_000),
      });
      if (res.ok && (await res.json()).status === "ok") return candidate;
    } catch {}
  }
  throw new Error(`no socket of the runtime (pid ${runtime}) answers /api/health`);
}

/**
 * Listens on 127.0.0.1:`port` (0: a port the system chooses, then `.port`) and pipes every
 * connection, byte for byte, to 127.0.0.1:`target` (a port, or a promise of one):
 * the browser keeps one address known before the worker starts (its OAuth redirects and APP_ORIGIN
 * name it) while the runtime's socket is found only once it runs.
 */
export async function tcpForward(port, target) {
  const sockets = new Set();
  const server = net.createServer(async (client) => {
    // The target may still be on its way (a promise): the front door listens from the start, so
    // its port is the forwarder's own from the first moment and no other program can take it
    // between choosing a port and listening on it. A client waits, paused, until it is known.
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    const to = await target;
    if (client.destroyed) return;
    const upstream = net.connect(to, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream);
    upstream.pipe(client);
    // A reset on either side ends the other, as a direct connection would.
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    /** The port it listens on (the one asked for, or the system's choice for 0). */
    port: server.address().port,
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A process's resident memory in KiB, split as the kernel counts it (proc(5)): anonymous pages (heaps,
 * buffers), file-backed pages (mapped files, a memory-mapped database among them) and shared memory.
 */
export function memKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kib("VmRSS"), anon: kib("RssAnon"), file: kib("RssFile"), shmem: kib("RssShmem") };
}

/** Resident memory of a process in KiB. */
export const rssKiB = (pid) => memKiB(pid).rss;

export const hex = (n) =>
  Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
export const b64 = (n) =>
  Buffer.from(Array.from({ length: n }, () => Math.floor(Math.random() * 256))).toString("base64");

/** An import/create body shaped like a real client's V3 entry; hosts repeat every 2,000 entries. */
export const benchEntry = (i) => ({
  name: `Entry ${i}`,
  website: `site${i % 2000}.example.com`,
  wrapped_item_key: b64(40),
  encrypted_data: b64(300),
  domain_hash: hex(64),
  name_hash: hex(64),
  username_hash: hex(64),
  search_tokens: [hex(16), hex(16)],
});

/**
 * A signed-in user with a CSRF token and `call`, which goes through node:http with keep-alive:
 * undici's fetch alone spends ~0.6 s reading a 7 MiB body on this machine, which would measure the
 * client rather than the service. Resolves with time, bytes, status, headers and parsed JSON;
 * rejects on a 4xx or 5xx.
 */
export async function benchSession(base, sub) {
  const token = await signDevToken({ sub, email: `${sub}@example.test` });
  const auth = { Authorization: `Bearer ${token}` };
  const { csrfToken } = await (
    await fetch(`${base}/api/auth/csrf-token`, { headers: auth })
  ).json();
  const agent = new http.Agent({ keepAlive: true });
  const once = (method, path, body, extra) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers = {
        ...auth,
        ...extra,
        ...(method === "GET"
          ? {}
          : { "x-csrf-token": csrfToken, "content-type": "application/json" }),
      };
      const t0 = performance.now();
      const req = http.request(`${base}${path}`, { method, headers, agent }, (res) => {
        const chunks = [];
        res.on("data", (d) => chunks.push(d));
        res.on("end", () => {
          const ms = performance.now() - t0;
          const buf = Buffer.concat(chunks);
          if (res.statusCode >= 400)
            return reject(
              new Error(
                `${method} ${path}: ${res.statusCode} ${buf.toString("utf8").slice(0, 300)}`,
              ),
            );
          resolve({
            ms,
            bytes: buf.length,
            status: res.statusCode,
            headers: res.headers,
            // A text answer (a breach range) has no JSON; its bytes are still counted above.
            json: /json/.test(res.headers["content-type"] ?? "")
              ? JSON.parse(buf.toString("utf8"))
              : null,
          });
        });
        res.on("error", reject);
      });
      req.on("error", (err) => reject(Object.assign(err, { reused: req.reusedSocket })));
      req.end(payload);
    });
  // A kept-alive socket the server closed while idle (say during a wrk run) fails on reuse; Node's
  // documented remedy is to send again on a fresh socket (request.reusedSocket).
  const call = (method, path, body, extra = {}) =>
    once(method, path, body, extra).catch((err) =>
      err.reused && (err.code === "ECONNRESET" || err.code === "EPIPE")
        ? once(method, path, body, extra)
        : Promise.reject(err),
    );
  return { auth, csrfToken, call };
}

/**
 * The worker isolate's JavaScript heap after a full collection, in bytes, through wrangler dev's
 * inspector (Chrome DevTools Protocol: HeapProfiler.collectGarbage, Runtime.getHeapUsage). Unlike
 * the process's RSS, which also holds the runtime's own memory and garbage not yet collected, it
 * grows only with what the worker's code keeps. One connection for the whole run: wrangler's
 * inspector proxy stopped answering a second one in a long run. Each reading gives up after 20 s.
 *
 * V8 runs the inspector's collectGarbage as a task posted to the isolate, and workerd runs that
 * task only when the isolate next has work: on an idle worker the command waits, unanswered, for
 * the next request. So a reading sends it, then sends the worker a request (`base` + /api/health)
 * every 250 ms until the collection has answered, and only then reads the heap. (Reading without
 * waiting measured the heap with all its garbage: the soak's "leak" of docs/decisions/hardening.md, "Hardening: limits, abuse and failure".)
 */
export async function workerHeapProbe(inspectorPort, base) {
  const { default: WebSocket } = await import("ws");
  const targets = await (
    await fetch(`http://127.0.0.1:${inspectorPort}/json`, { signal: AbortSignal.timeout(10_000) })
  ).json();
  // A heap snapshot arrives in chunks that together exceed ws's default message cap.
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl, { maxPayload: 1 << 30 });
  await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
  // Large ids: wrangler's inspector proxy numbers its own messages from 1 and keeps their answers.
  let next = 1_000_000 + Math.floor(Math.random() * 1_000_000);
  const call = (method, params = {}, timeout = 20_000) =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(
        () => (ws.off("message", onMessage), reject(new Error(`${method}: no answer`))),
        timeout,
      );
      const onMessage = (m) => {
        const d = JSON.parse(m);
        if (d.id === id) clearTimeout(timer), ws.off("message", onMessage), resolve(d.result);
      };
      ws.on("message", onMessage);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call("HeapProfiler.enable");
  // wrangler's proxy turns on the Network domain for a DevTools client; the runtime would then keep
  // a record of every subrequest (D1, Durable Objects) for it, which is our measuring, not the worker.
  await call("Network.disable");
  return {
    async usedAfterGc() {
      let collected = false;
      const gc = call("HeapProfiler.collectGarbage").then(() => (collected = true));
      for (let i = 0; !collected && i < 80; i++) {
        await fetch(`${base}/api/health`)
          .then((r) => r.arrayBuffer())
          .catch(() => {});
        await Promise.race([gc, new Promise((r) => setTimeout(r, 250))]);
      }
      await gc;
      return (await call("Runtime.getHeapUsage")).usedSize;
    },
    /** The heap as it stands, garbage included (what this probe read before it waited for the collection). */
    async usedNow() {
      return (await call("Runtime.getHeapUsage")).usedSize;
    },
    /** A heap snapshot (only what is reachable: V8 collects all garbage before taking one). */
    async snapshot() {
      const chunks = [];
      const onChunk = (m) => {
        const d = JSON.parse(m);
        if (d.method === "HeapProfiler.addHeapSnapshotChunk") chunks.push(d.params.chunk);
      };
      ws.on("message", onChunk);
      try {
        await call("HeapProfiler.takeHeapSnapshot", { reportProgress: false }, 300_000);
      } finally {
        ws.off("message", onChunk);
      }
      return JSON.parse(chunks.join(""));
    },
    close: () => ws.close(),
  };
}

/**
 * Seeds `n` V3 entries for `userId` straight into `worker`'s local D1, with distinct commit-clock
 * values. By default one pseudo-random envelope serves 100 rows, which keeps the SQL file small;
 * `unique` gives every row its own, as real ciphertext is (what a compression figure needs).
 */
export function seedEntries(worker, userId, n, name, { unique = false } = {}) {
  const now = Date.now() - n - 60_000;
  const stmts = [];
  let rows = [];
  const key = b64(40);
  let data = b64(300);
  for (let i = 0; i < n; i++) {
    if (unique || i % 100 === 0) data = b64(300);
    const host = `site${i % 2000}.example.com`;
    const ts = new Date(now + i).toISOString();
    rows.push(
      `('${userId}-${i}','${userId}','Entry ${i}','${host}','https://${host}/login','[]',3,'${unique ? b64(40) : key}','${data}','${hex(64)}','${hex(64)}','${hex(64)}','[]','${host}','${ts}','${ts}',${now + i})`,
    );
    if (rows.length === 50 || i === n - 1) {
      stmts.push(
        "INSERT INTO passwords (id,user_id,name,website,url,tags,encryption_version,wrapped_item_key,encrypted_data,domain_hash,name_hash,username_hash,search_tokens,host,created_at,updated_at,change_seq) VALUES " +
          rows.join(","),
      );
      rows = [];
    }
  }
  stmts.push(`INSERT INTO sync_clocks (user_id, clock) VALUES ('${userId}', ${now + n})`);
  worker.sql(writeSql(name, stmts));
}
