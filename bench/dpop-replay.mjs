// DPoP replay store bench (docs/decisions/hardening.md, "Hardening: devices, cookies, push, contact keys"): what
// taking each proof once costs a request that checks one. One `wrangler dev` with Server-Timing on;
// one user with two devices: a key-bound one (every request signs a fresh proof, which the server
// checks and, with the store, records) and a fingerprint-only one (no proof is checked). Both call
// the same device-gated route, interleaved, so the difference is the proof's check plus its store.
// Run it on the code before and after the store to see the store's share.
//   node bench/dpop-replay.mjs [--requests 200] [--port 8770]
import { createHash, generateKeyPairSync, randomUUID, sign } from "node:crypto";
import http from "node:http";
import { parseArgs } from "node:util";
import { benchSession, fmt, startWorker } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "200" },
    port: { type: "string", default: "8770" },
  },
});
const N = Number(values.requests);
const worker = await startWorker({
  port: Number(values.port),
  name: "dpop-replay",
  vars: { SERVER_TIMING: "true" },
});
const ROUTE = "/api/passwords/export";
const b64u = (b) => Buffer.from(b).toString("base64url");
const sha256 = (s) => createHash("sha256").update(s).digest();
const fp = () => sha256(randomUUID()).toString("hex");

try {
  const s = await benchSession(worker.base, `dpop-bench-${Date.now()}`);
  const token = s.auth.Authorization.slice("Bearer ".length);
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const { kty, crv, x, y } = publicKey.export({ format: "jwk" });
  const header = b64u(JSON.stringify({ typ: "dpop+jwt", alg: "ES256", jwk: { kty, crv, x, y } }));
  const nonce = (await s.call("GET", "/api/devices/dpop-nonce")).json.nonce;
  const proof = (method, path) => {
    const claims = b64u(
      JSON.stringify({
        htm: method,
        htu: `${worker.base}${path}`,
        iat: Math.floor(Date.now() / 1000),
        jti: randomUUID(),
        nonce,
        ath: b64u(sha256(token)),
      }),
    );
    return `${header}.${claims}.${b64u(sign("sha256", Buffer.from(`${header}.${claims}`), { key: privateKey, dsaEncoding: "ieee-p1363" }))}`;
  };
  const bound = fp();
  const plain = fp();
  await s.call(
    "POST",
    "/api/devices",
    { fingerprint: bound, publicKey: { kty, crv, x, y } },
    { dpop: proof("POST", "/api/devices") },
  );
  await s.call("POST", "/api/devices", { fingerprint: plain });

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (headers) =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = http.request(
        `${worker.base}${ROUTE}`,
        { headers: { ...s.auth, ...headers }, agent },
        (res) => {
          res.resume();
          res.on("end", () => {
            if (res.statusCode !== 200) return reject(new Error(`${ROUTE}: ${res.statusCode}`));
            const st = String(res.headers["server-timing"] ?? "");
            const dur = (name) =>
              Number(new RegExp(`(?:^|, )${name};dur=([\\d.]+)`).exec(st)?.[1] ?? 0);
            resolve({ ms: performance.now() - t0, db: dur("db"), app: dur("app") });
          });
        },
      );
      req.on("error", reject);
      req.end();
    });

  const runs = { proof: [], plain: [] };
  for (let i = 0; i < 10; i++) await get({ "x-device-fingerprint": plain });
  for (let i = 0; i < N; i++) {
    runs.proof.push(await get({ "x-device-fingerprint": bound, dpop: proof("GET", ROUTE) }));
    runs.plain.push(await get({ "x-device-fingerprint": plain }));
  }
  const q = (xs, p) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
  console.log(
    `GET ${ROUTE}, ${N} requests each, interleaved, one connection (ms; db = Server-Timing's D1 time)`,
  );
  console.log(`device             wall p50  wall p90  db p50  db p90  app p50`);
  for (const [name, xs] of Object.entries(runs)) {
    const col = (k, p) =>
      fmt(
        q(
          xs.map((r) => r[k]),
          p,
        ),
      ).padStart(8);
    console.log(
      `${name === "proof" ? "key-bound + proof" : "fingerprint only "}  ${col("ms", 0.5)}  ${col("ms", 0.9)}  ${col("db", 0.5)}  ${col("db", 0.9)}  ${col("app", 0.5)}`,
    );
  }
  const diff = (k) =>
    q(
      runs.proof.map((r) => r[k]),
      0.5,
    ) -
    q(
      runs.plain.map((r) => r[k]),
      0.5,
    );
  console.log(
    `proof's cost, median difference: wall ${fmt(diff("ms"))} ms, db ${fmt(diff("db"))} ms`,
  );
} finally {
  await worker.stop();
}
