// Foundation bench (docs/decisions/platform.md, "Platform: errors and responses"): a 10,000-entry vault; latency and throughput of autofill `match` and of
// the first list page of 50, beside a trivial authenticated route of the same worker.
//   node bench/foundation.mjs [--seconds 10] [--connections 8]
import { parseArgs } from "node:util";
import { ensureWrk, fmt, signDevToken, startWorker, writeSql, wrk } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "8" },
    port: { type: "string", default: "8720" },
  },
});
const opts = { seconds: Number(values.seconds), connections: Number(values.connections) };

ensureWrk();
const worker = await startWorker({ port: Number(values.port), name: "foundation" });
try {
  const userId = "bench-user";
  const hex = (n) =>
    Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
  const b64 = (n) =>
    Buffer.from(Array.from({ length: n }, () => Math.floor(Math.random() * 256))).toString(
      "base64",
    );
  const rows = [];
  const now = Date.now();
  for (let i = 0; i < 10_000; i++) {
    const host = `site${i % 2000}.example.com`;
    const ts = new Date(now - i * 1000).toISOString();
    rows.push(
      `('e${i}','${userId}','Entry ${i}','${host}','https://${host}/login','[]',3,'${b64(40)}','${b64(300)}','${hex(64)}','${hex(64)}','${hex(64)}','[]','${host}','${ts}','${ts}')`,
    );
  }
  const stmts = [];
  for (let i = 0; i < rows.length; i += 50) {
    stmts.push(
      "INSERT INTO passwords (id,user_id,name,website,url,tags,encryption_version,wrapped_item_key,encrypted_data,domain_hash,name_hash,username_hash,search_tokens,host,created_at,updated_at) VALUES " +
        rows.slice(i, i + 50).join(","),
    );
  }
  const t0 = performance.now();
  worker.sql(writeSql("foundation-seed", stmts));
  console.log(`seeded 10,000 entries in ${fmt((performance.now() - t0) / 1000, 1)} s`);

  const token = await signDevToken({ sub: userId, email: "bench@example.test" });
  const headers = { Authorization: `Bearer ${token}` };
  const check = await fetch(`${worker.base}/api/passwords?limit=50`, { headers });
  const page = await check.json();
  const matched = await (
    await fetch(`${worker.base}/api/passwords/match?url=https://login.site42.example.com/x`, {
      headers,
    })
  ).json();
  console.log(
    `sanity: list total=${page.pagination.total}, page size=${page.data.length}, match returned ${matched.matches.length} entries`,
  );

  const cases = [
    ["trivial (GET /api/auth/csrf-token)", "/api/auth/csrf-token"],
    [
      "match (GET /api/passwords/match)",
      "/api/passwords/match?url=https%3A%2F%2Flogin.site42.example.com%2Fx",
    ],
    ["list page of 50 (GET /api/passwords?limit=50)", "/api/passwords?limit=50"],
  ];
  const results = {};
  wrk(`${worker.base}${cases[0][1]}`, headers, { ...opts, seconds: 3 });
  for (const [label, path] of cases) {
    const r = wrk(`${worker.base}${path}`, headers, opts);
    results[label] = r;
    console.log(
      `${label.padEnd(48)} p50 ${fmt(r.p50).padStart(7)} ms  p99 ${fmt(r.p99).padStart(7)} ms  ${fmt(r.rps, 0).padStart(6)} req/s  non-2xx ${r.non2xx}`,
    );
  }
  const [base, match, list] = Object.values(results);
  console.log(`match p99 / trivial p99 = ${fmt(match.p99 / base.p99)}x (target <= 3x)`);
  console.log(`list-50 p99 / trivial p99 = ${fmt(list.p99 / base.p99)}x (target <= 5x)`);
} finally {
  worker.stop();
}
