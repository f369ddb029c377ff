// Soak (docs/decisions/hardening.md, "Hardening: limits, abuse and failure"): many users mixing the service's routes at a fixed rate against a real
// `wrangler dev` for minutes. Prints, per route family, the count, 4xx, 5xx, p50 and p99, and the
// workerd runtime's resident memory over time. Asserts nothing; the exit code is 1 on any 5xx.
//
//   node bench/soak.mjs [--minutes 10] [--users 50] [--rate 20] [--only family,family] [--var NAME=value]
//                       [--port 8797] [--inspector-port <port + 1000>]
//
// The load is open-loop: requests are sent on a fixed schedule whatever the answers take, so a
// slow service shows up as latency rather than as a lower request rate.
import { createHash, randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import {
  b64,
  benchEntry,
  benchSession,
  fmt,
  rssKiB,
  startWorker,
  workerdPids,
  workerHeapProbe,
} from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    users: { type: "string", default: "50" },
    rate: { type: "string", default: "20" },
    port: { type: "string", default: "8797" },
    "inspector-port": { type: "string" },
    only: { type: "string" },
    var: { type: "string", multiple: true, default: [] },
  },
});
const MINUTES = Number(values.minutes);
const USERS = Number(values.users);
const RATE = Number(values.rate);
const PORT = Number(values.port);

const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
const bytes = (n) => b64(n);
const entryBody = (i) => ({ ...benchEntry(i), encryption_version: 3 });

/** One person: a session, a device, and what they made so far (ids to read, edit and delete). */
async function person(base, i) {
  const sub = `soak-${Date.now()}-${i}`;
  const s = await benchSession(base, sub);
  const fingerprint = createHash("sha256").update(`soak-device-${i}-${randomUUID()}`).digest("hex");
  const dev = { "x-device-fingerprint": fingerprint };
  await s.call(
    "POST",
    "/api/devices",
    { fingerprint, deviceName: `Soak ${i}`, os: "Linux", browser: "Chrome" },
    dev,
  );
  const { publicKey } = await crypto.subtle.generateKey(
    { name: "ECDH", namedCurve: "P-256" },
    true,
    ["deriveBits"],
  );
  const { kty, crv, x, y } = await crypto.subtle.exportKey("jwk", publicKey);
  await s.call("PUT", "/api/sharing/public-key", { publicKey: { kty, crv, x, y } });
  const first = await s.call("GET", "/api/passwords/sync");
  return {
    ...s,
    sub,
    dev,
    fingerprint,
    entries: [],
    attachments: [],
    identities: [],
    cursor: first.json.serverTimestamp,
    n: 0,
    signedInAt: Date.now(),
  };
}

/** A person signs in again every few minutes, as the step-up routes (downloads, reveal) need. */
async function renewed(base, p) {
  if (Date.now() - p.signedInAt < 4 * 60_000) return p;
  const s = await benchSession(base, p.sub);
  return Object.assign(p, {
    auth: s.auth,
    csrfToken: s.csrfToken,
    call: s.call,
    signedInAt: Date.now(),
  });
}

/**
 * The mix, weighted roughly as clients use the service: the extension's match and the web app's
 * sync dominate, then entry edits; account pages and the rarer writes fill the rest.
 */
const OPS = [
  [
    8,
    "match",
    (p) =>
      p.call(
        "GET",
        `/api/passwords/match?url=${encodeURIComponent(`https://site${p.n % 2000}.example.com/login`)}`,
      ),
  ],
  [
    8,
    "sync",
    async (p) => {
      const r = await p.call("GET", `/api/passwords/sync?since=${encodeURIComponent(p.cursor)}`);
      p.cursor = r.json.serverTimestamp;
      return r;
    },
  ],
  [
    3,
    "sync",
    (p) => {
      const stamp = new Date().toISOString();
      const mutations = Array.from({ length: 5 }, (_, k) => ({
        action: "create",
        id: randomUUID(),
        clientUpdatedAt: stamp,
        data: entryBody(p.n + k),
      }));
      return p
        .call("POST", "/api/passwords/sync", { mutations })
        .then((r) => (p.entries.push(...mutations.map((m) => m.id)), r));
    },
  ],
  [
    5,
    "entries.create",
    (p) =>
      p
        .call("POST", "/api/passwords", entryBody(p.n++))
        .then((r) => (p.entries.push(r.json.data.id), r)),
  ],
  [4, "entries.list", (p) => p.call("GET", "/api/passwords?limit=50")],
  [
    3,
    "entries.edit",
    (p) =>
      p.entries.length
        ? p.call("PATCH", `/api/passwords/${pick(p.entries)}`, {
            encrypted_data: bytes(300),
            wrapped_item_key: bytes(40),
          })
        : null,
  ],
  [
    2,
    "entries.reveal",
    (p) =>
      p.entries.length
        ? p.call("POST", `/api/passwords/${pick(p.entries)}/reveal`, undefined, p.dev)
        : null,
  ],
  [
    1,
    "entries.delete",
    (p) => (p.entries.length > 20 ? p.call("DELETE", `/api/passwords/${p.entries.shift()}`) : null),
  ],
  [2, "notifications", (p) => p.call("GET", "/api/notifications?limit=20")],
  [1, "notifications", (p) => p.call("POST", "/api/notifications/read")],
  [2, "devices", (p) => p.call("GET", "/api/devices")],
  [
    1,
    "devices",
    (p) =>
      p.call(
        "POST",
        "/api/devices",
        { fingerprint: p.fingerprint, deviceName: "Soak", os: "Linux", browser: "Chrome" },
        p.dev,
      ),
  ],
  [2, "identities", (p) => p.call("GET", "/api/identities?limit=20")],
  [
    1,
    "identities",
    (p) =>
      p
        .call("POST", "/api/identities", { label: `Soak ${p.n}` })
        .then((r) => (p.identities.push(r.json.identity?.id), r)),
  ],
  [2, "sharing", (p) => p.call("GET", `/api/sharing?type=${pick(["owned", "received"])}`)],
  [1, "sharing", (p) => p.call("GET", "/api/sharing/public-key")],
  [2, "emergency", (p) => p.call("GET", "/api/vault/emergency")],
  [2, "dead-man-switch", (p) => p.call("GET", "/api/dead-man-switch")],
  [1, "two-factor", (p) => p.call("GET", "/api/2fa/status")],
  [1, "discovery", (p) => p.call("GET", "/api/accounts")],
  [1, "integrations", (p) => p.call("GET", "/api/user-integrations")],
  [
    1,
    "attachments",
    async (p) => {
      if (!p.entries.length) return null;
      const parent = p.entries[p.entries.length - 1];
      const body = {
        parent_id: parent,
        parent_type: "password",
        encrypted_content: bytes(4096),
        wrapped_file_key: { iv: bytes(12), ciphertext: bytes(48) },
        encrypted_filename: { iv: bytes(12), ciphertext: bytes(40) },
        encrypted_mime_type: { iv: bytes(12), ciphertext: bytes(32) },
      };
      const r = await p.call("POST", "/api/vault/attachments", body);
      p.attachments.push(r.json.attachment.id);
      return r;
    },
  ],
  [
    1,
    "attachments",
    (p) =>
      p.attachments.length ? p.call("GET", `/api/vault/attachments/${pick(p.attachments)}`) : null,
  ],
  [
    1,
    "attachments",
    (p) =>
      p.attachments.length > 3
        ? p.call("DELETE", `/api/vault/attachments/${p.attachments.shift()}`)
        : null,
  ],
  [1, "meta", (p) => p.call("GET", "/api/health")],
];
/** `--only sync,passwords` narrows the mix to those families (to find which one a trend follows). */
const wanted = (family) =>
  values.only.split(",").some((w) => family === w || family.startsWith(`${w}.`));
const MIX = values.only ? OPS.filter(([, family]) => wanted(family)) : OPS;
const TOTAL = MIX.reduce((n, [w]) => n + w, 0);
function chooseOp() {
  let r = Math.random() * TOTAL;
  for (const op of MIX) if ((r -= op[0]) < 0) return op;
  return MIX[0];
}

const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function main() {
  const vars = Object.fromEntries(
    values.var.map((v) => [v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1)]),
  );
  const INSPECTOR = values["inspector-port"] ? Number(values["inspector-port"]) : PORT + 1000;
  const worker = await startWorker({ port: PORT, name: "soak", vars, inspectorPort: INSPECTOR });
  try {
    const { runtime } = workerdPids(PORT);
    const people = [];
    for (let i = 0; i < USERS; i++) people.push(await person(worker.base, i));
    const memory = [{ at: 0, rss: rssKiB(runtime) }];
    const heap = await workerHeapProbe(INSPECTOR, worker.base);
    const heapStartRaw = await heap.usedNow();
    const heapStart = await heap.usedAfterGc();
    const stats = new Map();
    const errors = new Map();
    const record = (family, ms, status) => {
      const s = stats.get(family) ?? { ms: [], c4: 0, c5: 0 };
      s.ms.push(ms);
      if (status >= 500) s.c5++;
      else if (status >= 400) s.c4++;
      stats.set(family, s);
    };
    console.log(
      `soak: ${USERS} users, ${RATE} req/s for ${MINUTES} min against ${worker.base}; workerd runtime RSS at start ${fmt(memory[0].rss / 1024, 1)} MiB`,
    );

    const t0 = performance.now();
    const end = t0 + MINUTES * 60_000;
    const inflight = new Set();
    let sent = 0;
    let nextSample = t0 + 60_000;
    while (performance.now() < end) {
      const due = t0 + (sent * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sent++;
      const [, family, run] = chooseOp();
      const p = pick(people);
      const started = performance.now();
      const job = renewed(worker.base, p)
        .then(() => run(p))
        .then(
          (res) => res && record(family, res.ms, res.status),
          (err) => {
            const status = Number(/: (\d{3}) /.exec(String(err.message))?.[1] ?? 599);
            record(family, performance.now() - started, status);
            const key = `${family} ${String(err.message)
              .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>")
              .slice(0, 160)}`;
            errors.set(key, (errors.get(key) ?? 0) + 1);
          },
        )
        .finally(() => inflight.delete(job));
      inflight.add(job);
      if (performance.now() >= nextSample) {
        memory.push({ at: Math.round((performance.now() - t0) / 60_000), rss: rssKiB(runtime) });
        console.log(
          `  minute ${memory.at(-1).at}: ${sent} sent, ${inflight.size} in flight, workerd RSS ${fmt(memory.at(-1).rss / 1024, 1)} MiB`,
        );
        nextSample += 60_000;
      }
    }
    await Promise.all(inflight);
    memory.push({ at: MINUTES, rss: rssKiB(runtime) });
    const heapEndRaw = await heap.usedNow().catch(() => NaN);
    const heapEnd = await heap.usedAfterGc().catch(() => NaN);
    heap.close();
    const seconds = (performance.now() - t0) / 1000;

    console.log(`\n${sent} requests in ${fmt(seconds, 0)} s (${fmt(sent / seconds, 1)} req/s)`);
    console.log(
      `${"family".padEnd(16)} ${"count".padStart(6)} ${"4xx".padStart(5)} ${"5xx".padStart(5)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}`,
    );
    let fivexx = 0;
    for (const [family, s] of [...stats].sort((a, b) => a[0].localeCompare(b[0]))) {
      fivexx += s.c5;
      console.log(
        `${family.padEnd(16)} ${String(s.ms.length).padStart(6)} ${String(s.c4).padStart(5)} ${String(s.c5).padStart(5)} ${fmt(pct(s.ms, 50), 1).padStart(8)} ${fmt(pct(s.ms, 99), 1).padStart(8)}`,
      );
    }
    const mib = (b) => fmt(b / 1024 / 1024, 1);
    console.log(
      `worker JS heap after a full GC: start ${mib(heapStart)} MiB, end ${mib(heapEnd)} MiB (${fmt((heapEnd - heapStart) / sent, 0)} B/request)`,
    );
    console.log(
      `worker JS heap as it stood, garbage included: start ${mib(heapStartRaw)} MiB, end ${mib(heapEndRaw)} MiB`,
    );
    console.log(
      `workerd runtime RSS: start ${fmt(memory[0].rss / 1024, 1)} MiB, end ${fmt(memory.at(-1).rss / 1024, 1)} MiB, max ${fmt(Math.max(...memory.map((m) => m.rss)) / 1024, 1)} MiB`,
    );
    if (errors.size) {
      console.log("\nerrors (first 160 characters, count):");
      for (const [k, n] of errors) console.log(`  ${n} × ${k}`);
    }
    process.exitCode = fivexx > 0 ? 1 : 0;
  } finally {
    worker.stop();
  }
}

await main();
