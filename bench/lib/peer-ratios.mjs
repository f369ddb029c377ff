// The ratios bench/peer-sync.mjs prints beside the full pull, at one vault size: create at 10
// connections against the peer's create-cipher route (POST /api/ciphers), create latency one at a
// time, our autofill match against our trivial route (lib/paired.mjs, as bench/hot-paths.mjs takes
// it), and catching up on 100 changes: our delta pull against the full sync the peer's clients make
// (it has no delta). Every comparison alternates the two sides, so both see the same moment of a
// shared machine.
import { writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { b64, benchEntry, benchSession, fmt, wrk } from "./harness.mjs";
import { MATCH_PATH, trivialRoute } from "./paired.mjs";
import { ROOT } from "../../scripts/lib/dev-identity.mjs";

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const enc = () => `2.${b64(16)}|${b64(32)}|${b64(32)}`;

/** A login cipher as a Bitwarden client posts it to the peer (encrypted strings, type 1). */
const peerCipher = () => ({
  type: 1,
  name: enc(),
  notes: null,
  favorite: false,
  reprompt: 0,
  login: { username: enc(), password: enc(), uris: [{ uri: enc(), match: null }], totp: null },
});

/** One POST through node:http with keep-alive, its latency in ms; rejects unless 200. */
function poster(base, headers) {
  const agent = new http.Agent({ keepAlive: true });
  return (path, body) =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = http.request(
        `${base}${path}`,
        { method: "POST", agent, headers: { ...headers, "content-type": "application/json" } },
        (res) => {
          res.resume();
          res.on("end", () =>
            res.statusCode === 200
              ? resolve(performance.now() - t0)
              : reject(new Error(`POST ${path}: ${res.statusCode}`)),
          );
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(body));
    });
}

/** A wrk script that POSTs `body` with `headers`, written under bench/out. */
function postScript(name, body, headers) {
  const file = join(ROOT, "bench", "out", `${name}.lua`);
  const lines = Object.entries({ "Content-Type": "application/json", ...headers }).map(
    ([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`,
  );
  writeFileSync(
    file,
    `wrk.method = "POST"\nwrk.body = ${JSON.stringify(JSON.stringify(body))}\n${lines.join("\n")}\n`,
  );
  return file;
}

/**
 * At one size: `session` is ours (benchSession) over `n` seeded entries of `userId`; `peer` (or
 * null) is { base, auth, pull } with `pull(path)` the peer-sync getter. Prints its rows through
 * `row` and returns the ratios.
 */
export async function peerRatios({ base, session, userId, n, peer, opts, row }) {
  const { seconds, connections, pairs, runs, tag } = opts;
  const out = { n };

  // Autofill match p50 and p99 against the trivial route's, in wrk pairs at `connections`.
  const probe = await benchSession(base, `${userId}-probe`);
  const trivial = trivialRoute(base, probe, { seconds, connections, pairs });
  for (let i = 0; i < 20; i++) await trivial.once();
  const first = await session.call("GET", MATCH_PATH);
  const match = trivial.paired(`${base}${MATCH_PATH}`, session.auth);
  out.matchP50 = match.p50;
  out.matchP99 = match.p99;
  row(
    `match, c=${connections} (${first.json.matches.length} matches)`,
    `p50 ${fmt(match.run.p50)} ms  p99 ${fmt(match.run.p99)} ms   trivial beside it p50 ${fmt(match.trivialP50)} ms  p99 ${fmt(match.trivialP99)} ms   ratios p50 ${fmt(match.p50)}x  p99 ${fmt(match.p99)}x`,
  );

  // Catch-up on 100 changes, each round: 100 edits on our side (one push) and 100 new ciphers on
  // the peer's (its revision date moves, so its cached sync answer is no longer served), then our
  // delta pull and the peer's full sync, timed in alternating order.
  let cursor = (
    await session.call(
      "GET",
      `/api/passwords/sync?since=${encodeURIComponent(new Date().toISOString())}`,
    )
  ).json.serverTimestamp;
  const peerPost = peer ? poster(peer.base, peer.auth) : null;
  const delta = [];
  const peerFull = [];
  for (let r = 0; r < runs; r++) {
    const stamp = new Date().toISOString();
    const mutations = Array.from({ length: 100 }, (_, k) => ({
      action: "update",
      id: `${userId}-${(r * 100 + k) % n}`,
      clientUpdatedAt: stamp,
      data: {
        name: `Edited ${r}.${k}`,
        encrypted_data: b64(300),
        wrapped_item_key: b64(40),
        encryption_version: 3,
      },
    }));
    const p = await session.call("POST", "/api/passwords/sync", { mutations });
    const applied = p.json.results.filter((x) => x.status === "applied").length;
    if (applied !== 100) throw new Error(`push applied ${applied} of 100`);
    if (peerPost)
      for (let k = 0; k < 100; k += 10)
        await Promise.all(Array.from({ length: 10 }, () => peerPost("/api/ciphers", peerCipher())));
    const order = r % 2 === 0 ? ["ours", "peer"] : ["peer", "ours"];
    for (const side of order) {
      if (side === "peer" && peer) peerFull.push((await peer.pull("/api/sync")).ms);
      if (side !== "ours") continue;
      const d = await session.call(
        "GET",
        `/api/passwords/sync?since=${encodeURIComponent(cursor)}`,
      );
      if (d.json.changes.length !== 100)
        throw new Error(`delta pull returned ${d.json.changes.length} changes`);
      delta.push(d.ms);
      cursor = d.json.serverTimestamp;
    }
  }
  out.catchUp = median(peerFull) / median(delta);
  row(
    "catch-up on 100 changes, median",
    `our delta pull ${fmt(median(delta))} ms` +
      (peer
        ? `   peer full sync (uncached) ${fmt(median(peerFull), 0)} ms   peer/ours ${fmt(out.catchUp, 1)}x`
        : ""),
  );

  // Create one at a time, alternating: p50 latency.
  const one = [];
  const theirOne = [];
  for (let i = 0; i < 10 * runs; i++) {
    const order = i % 2 === 0 ? ["ours", "peer"] : ["peer", "ours"];
    for (const side of order)
      if (side === "ours")
        one.push((await session.call("POST", "/api/passwords", benchEntry(i))).ms);
      else if (peerPost) theirOne.push(await peerPost("/api/ciphers", peerCipher()));
  }
  out.createP50 = median(one) / median(theirOne);
  row(
    `create, one at a time (${one.length} each)`,
    `ours p50 ${fmt(median(one))} ms` +
      (peer ? `   peer p50 ${fmt(median(theirOne))} ms   ours/peer ${fmt(out.createP50)}` : ""),
  );

  // Create at `connections` connections for `seconds`, wrk runs alternating ours and the peer's.
  const ourLua = postScript(`peer-ratios-create-ours-${tag}`, benchEntry(1), {
    "X-CSRF-Token": session.csrfToken,
  });
  const peerLua = postScript(`peer-ratios-create-peer-${tag}`, peerCipher(), {});
  const WRK = { seconds, connections };
  const pairsRun = [];
  for (let i = 0; i < pairs; i++) {
    const a = () => wrk(`${base}/api/passwords`, session.auth, { ...WRK, script: ourLua });
    const b = () =>
      peer ? wrk(`${peer.base}/api/ciphers`, peer.auth, { ...WRK, script: peerLua }) : null;
    const [ours, theirs] = i % 2 === 0 ? [a(), b()] : ((t) => [a(), t])(b());
    pairsRun.push({ ours, theirs, ratio: theirs ? ours.rps / theirs.rps : NaN });
  }
  const mid = [...pairsRun].sort((x, y) => x.ratio - y.ratio)[Math.floor(pairs / 2)];
  out.createRps = median(pairsRun.map((x) => x.ratio));
  const non2xx = pairsRun.reduce((s, x) => s + x.ours.non2xx + (x.theirs?.non2xx ?? 0), 0);
  row(
    `create, wrk c=${connections} ${seconds} s (${pairs} pairs)`,
    `ours ${fmt(mid.ours.rps, 0)} req/s (p50 ${fmt(mid.ours.p50)} ms)` +
      (peer
        ? `   peer ${fmt(mid.theirs.rps, 0)} req/s (p50 ${fmt(mid.theirs.p50)} ms)   ours/peer ${fmt(out.createRps)}`
        : "") +
      (non2xx ? `   (${non2xx} non-2xx answers)` : ""),
  );
  return out;
}

/** The one table of ratios, at the largest size measured (and the full pull at 1,000 beside it). */
export function printRatioTable(pulls, ratios, load) {
  const at = ratios.at(-1);
  const small = pulls.find((s) => s.n === 1000);
  const big = pulls.find((s) => s.n === at.n);
  const x = (v, d = 2) => (Number.isFinite(v) ? `${fmt(v, d)}x` : "n/a");
  const cell = (v, goal, ok, d) =>
    `| ${x(v, d)}${Number.isFinite(v) ? (ok(v) ? " (met)" : " (not met)") : ""} | ${goal} |`;
  const le = (g) => (v) => v <= g;
  const ge = (g) => (v) => v >= g;
  console.log(`\n| at ${at.n.toLocaleString("en")} entries | ratio | goal |`);
  console.log("| --- | --- | --- |");
  console.log(`| full pull, time ours/peer ${cell(big.ours / big.peer, "≤ 0.5x", le(0.5))}`);
  if (small && small !== big)
    console.log(
      `| full pull at 1,000, time ours/peer ${cell(small.ours / small.peer, "≤ 0.5x", le(0.5))}`,
    );
  console.log(`| create (10 connections), rate ours/peer ${cell(at.createRps, "≥ 2x", ge(2))}`);
  console.log(`| create p50, ours/peer ${cell(at.createP50, "≤ 0.5x", le(0.5))}`);
  console.log(`| autofill match p50 / trivial route p50 ${cell(at.matchP50, "≤ 1.5x", le(1.5))}`);
  console.log(`| autofill match p99 / trivial route p99 ${cell(at.matchP99, "≤ 1.5x", le(1.5))}`);
  console.log(
    `| catch-up on 100 changes: peer full sync / our delta ${cell(at.catchUp, "≥ 50x", ge(50), 1)}`,
  );
  console.log(
    `\nload average (1, 5, 15 min): start ${load.start}, end ${load.end}. The machine is shared with other work: these figures are indicative only.`,
  );
}
