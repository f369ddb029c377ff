// Live sync bench (docs/decisions/sync.md, "Sync: live sync (a hub per user, told after each commit)"; docs/scale.md). One `wrangler dev` with
// Server-Timing on. Three figures:
//  1. latency: device A saves an entry; device B, connected to the hub, is told and delta-pulls;
//     from A's write response to B's pull holding the entry, p50 and p99 (B's decrypt and paint
//     are the web client's and not included: the browser journey measures them once);
//  2. D1 queries per idle device per hour: D1 calls of an idle delta pull (Server-Timing's count)
//     times the pulls an hour the policy makes (every 30 s without live sync; with it, none while
//     current but the five-minute safety net); the keepalive is answered by the runtime (0 queries);
//  3. one hub holding 1,000 idle connections: the runtime's memory, and the time from a write's
//     response until every connection has the notice.
//   node bench/live-sync.mjs [--writes 100] [--connections 1000] [--port 8771]
import { parseArgs } from "node:util";
import {
  benchEntry,
  benchSession,
  fmt,
  memKiB,
  signDevToken,
  startWorker,
  workerdPids,
} from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    writes: { type: "string", default: "100" },
    connections: { type: "string", default: "1000" },
    port: { type: "string", default: "8771" },
  },
});
const WRITES = Number(values.writes);
const CONNS = Number(values.connections);
const worker = await startWorker({
  port: Number(values.port),
  name: "live-sync",
  vars: { SERVER_TIMING: "true", LIVE_SYNC_MAX_CONNECTIONS: String(CONNS + 10) },
});
const wsUrl = `${worker.base.replace(/^http/, "ws")}/api/sync/live`;
const q = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** A device's live connection: resolves once the hub's greeting is in; `on(fn)` sees each notice. */
function connect(token) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, ["vault-live", `vault-bearer.${token}`]);
    const listeners = new Set();
    ws.addEventListener("error", () => reject(new Error("live connection failed")));
    ws.addEventListener("message", (e) => {
      const m = JSON.parse(e.data);
      if (m.type === "hello")
        resolve({ ws, on: (fn) => (listeners.add(fn), () => listeners.delete(fn)) });
      else for (const fn of listeners) fn(m, performance.now());
    });
  });
}

const dbCalls = (headers) => {
  const st = String(headers["server-timing"] ?? "");
  const m = /(?:^|, )db;dur=[\d.]+(?:;desc="(\d+) calls")?/.exec(st);
  return m ? Number(m[1] ?? 1) : 0;
};

try {
  const sub = `live-bench-${Date.now()}`;
  const a = await benchSession(worker.base, sub);
  const b = await benchSession(worker.base, sub);
  const token = await signDevToken({ sub, email: `${sub}@example.test` });
  let cursor = (await b.call("GET", "/api/passwords/sync")).json.serverTimestamp;

  // 1. Write → the other device has it.
  const device = await connect(token);
  const lat = [];
  for (let i = 0; i < WRITES; i++) {
    const got = new Promise((resolve) => {
      const off = device.on(async (m) => {
        if (Date.parse(m.clock) <= Date.parse(cursor)) return;
        off();
        const pulled = await b.call(
          "GET",
          `/api/passwords/sync?since=${encodeURIComponent(cursor)}`,
        );
        cursor = pulled.json.serverTimestamp;
        resolve({ at: performance.now(), ids: pulled.json.changes.map((c) => c.id) });
      });
    });
    const res = await a.call("POST", "/api/passwords", benchEntry(i));
    const wroteAt = performance.now();
    const { at, ids } = await got;
    if (!ids.includes(res.json.data.id))
      throw new Error("the pull after the notice lacks the entry");
    lat.push(at - wroteAt);
  }
  device.ws.close(1000);
  console.log(
    `write response → other device's pull holds it, ${WRITES} writes: p50 ${fmt(q(lat, 0.5), 1)} ms, p99 ${fmt(q(lat, 0.99), 1)} ms, max ${fmt(Math.max(...lat), 1)} ms`,
  );

  // 2. D1 queries per idle device per hour.
  const idle = [];
  for (let i = 0; i < 20; i++)
    idle.push(
      dbCalls(
        (await b.call("GET", `/api/passwords/sync?since=${encodeURIComponent(cursor)}`)).headers,
      ),
    );
  const perPull = q(idle, 0.5);
  const polling = (3600 / 30) * perPull;
  const live = (3600 / 300) * perPull;
  console.log(
    `idle delta pull: ${perPull} D1 call(s) (Server-Timing); per idle device per hour: polling every 30 s ${polling}, live sync ${live} (${fmt(polling / live, 0)}x fewer); keepalive pings: 0`,
  );

  // 3. One hub, many idle connections.
  const { runtime } = workerdPids(Number(values.port));
  const before = memKiB(runtime).rss;
  const conns = [];
  for (let i = 0; i < CONNS; i += 50)
    conns.push(
      ...(await Promise.all(Array.from({ length: Math.min(50, CONNS - i) }, () => connect(token)))),
    );
  await new Promise((r) => setTimeout(r, 2000));
  const after = memKiB(runtime).rss;
  console.log(
    `${CONNS} idle connections on one hub: runtime RSS ${fmt(before / 1024, 1)} → ${fmt(after / 1024, 1)} MiB (+${fmt((after - before) / CONNS, 1)} KiB a connection, client sockets in this process excluded)`,
  );
  for (let round = 0; round < 3; round++) {
    const arrivals = [];
    const all = new Promise((resolve) => {
      for (const c of conns) {
        const off = c.on((_m, t) => {
          off();
          arrivals.push(t);
          if (arrivals.length === conns.length) resolve();
        });
      }
    });
    // From the write's request: the notice goes out once the batch has committed, before the
    // response reaches this process, so the response is no reference point.
    const sentAt = performance.now();
    await a.call("POST", "/api/passwords", benchEntry(WRITES + round));
    await all;
    const rel = arrivals.map((t) => t - sentAt);
    const first = Math.min(...rel);
    console.log(
      `fan-out of one change to ${CONNS} (ms from the write's request): first ${fmt(first, 1)}, p50 ${fmt(q(rel, 0.5), 1)}, last ${fmt(Math.max(...rel), 1)}; first to last ${fmt(Math.max(...rel) - first, 1)}`,
    );
  }
  for (const c of conns) c.ws.close(1000);
} finally {
  worker.stop();
}
