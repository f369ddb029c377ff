// Shard router bench (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): 100,000 user ids through the rendezvous router of
// src/db/shards.ts (the module the worker runs, compiled with esbuild), for several shard counts:
// users per shard, max/min ratio, the share of users that move when one shard is added, and the
// cost of one routing decision. `--move` adds the move of a 10,000-entry vault between two shards
// while its owner writes (test/db/shard-move-bench.test.ts in the worker pool's local D1, three
// shards; a few minutes).
//   node bench/shards.mjs [--users 100000] [--shards 1,3,8,16,64] [--move]
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { transformSync } from "esbuild";

const { values } = parseArgs({
  options: {
    users: { type: "string", default: "100000" },
    shards: { type: "string", default: "1,3,8,16,64" },
    move: { type: "boolean", default: false },
  },
});
const USERS = Number(values.users);
const COUNTS = values.shards.split(",").map(Number);

const source = readFileSync(new URL("../src/db/shards.ts", import.meta.url), "utf8");
const { code } = transformSync(source, { loader: "ts", format: "esm" });
const { pickShard } = await import(
  `data:text/javascript;base64,${Buffer.from(code).toString("base64")}`
);

// Half random UUIDs (what most identity providers put in `sub`), half sequential names, whose
// near-identical strings are the hard case for a weak hash.
const ids = Array.from({ length: USERS }, (_, i) => (i % 2 ? randomUUID() : `user-${i}`));
const names = (n) => Array.from({ length: n }, (_, i) => `DB_${i}`);

function timePerCall(shards) {
  // Warm up so the JIT has compiled the loop before it is timed.
  for (let i = 0; i < 20_000; i++) pickShard(ids[i % ids.length], shards);
  const start = process.hrtime.bigint();
  let sink = 0;
  for (const id of ids) sink += pickShard(id, shards).length;
  const ns = Number(process.hrtime.bigint() - start) / ids.length;
  if (sink === 0) throw new Error("unreachable");
  return ns;
}

console.log(`${USERS.toLocaleString("en")} user ids through the router\n`);
console.log(
  "shards | users per shard: min / mean / max | max/min | moved when one shard is added | ns per routing",
);
for (const n of COUNTS) {
  const shards = names(n);
  const counts = new Map(shards.map((s) => [s, 0]));
  for (const id of ids) counts.set(pickShard(id, shards), counts.get(pickShard(id, shards)) + 1);
  const v = [...counts.values()];
  const min = Math.min(...v);
  const max = Math.max(...v);
  const grown = names(n + 1);
  let moved = 0;
  let wrongPlace = 0;
  for (const id of ids) {
    const after = pickShard(id, grown);
    if (after !== pickShard(id, shards)) {
      moved++;
      if (after !== `DB_${n}`) wrongPlace++;
    }
  }
  if (wrongPlace) throw new Error(`${wrongPlace} users moved between old shards`);
  const ideal = 100 / (n + 1);
  console.log(
    `${String(n).padStart(6)} | ${min} / ${Math.round(USERS / n)} / ${max} | ${(max / min).toFixed(3)} | ${((100 * moved) / USERS).toFixed(2)}% (ideal ${ideal.toFixed(2)}%) | ${timePerCall(shards).toFixed(0)}`,
  );
}
console.log(
  "\nThe hash is computed for users not yet in the map (their first write) and by the bench; every statement" +
    "\nlooks the user up in the isolate's cache of the map (a Map lookup), and on a miss reads the directory's" +
    "\nuser_shards row: at most once per user per isolate every SHARD_CACHE_MS (10 s; src/db/shard-map.ts).",
);

if (values.move) {
  console.log("\nMoving a 10,000-entry vault (worker pool, local D1, VAULT_SHARDS=3) …");
  const root = new URL("..", import.meta.url).pathname;
  const r = spawnSync("npx", ["vitest", "run", "test/db/shard-move-bench.test.ts"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, VAULT_SHARDS: "3", SHARD_BENCH: "1" },
  });
  const line = `${r.stdout}${r.stderr}`.split("\n").find((l) => l.includes("BENCH move"));
  if (r.status !== 0 || !line) {
    console.log(`${r.stdout}${r.stderr}`.slice(-4000));
    process.exit(r.status || 1);
  }
  console.log(line.slice(line.indexOf("BENCH move") + 6));
}
