// What a family, 100 users and 10,000 users cost a day and a month, and one idle device an hour,
// computed from the cost bench's figures (docs/cost.json, `npm run bench:cost`) and written into
// docs/cost.md with the per-request table. The usage of a day is an assumption, stated in USAGE
// below and printed with the result; the prices and allowances are Cloudflare's (cited in PLANS).
//   node bench/cost-model.mjs [--in docs/cost.json] [--out docs/cost.md]
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { PLANS, USAGE, IDLE_HOUR, render } from "./lib/cost-doc.mjs";

const { values } = parseArgs({
  options: {
    in: { type: "string", default: "docs/cost.json" },
    out: { type: "string", default: "docs/cost.md" },
  },
});
const table = JSON.parse(readFileSync(join(ROOT, values.in), "utf8"));
const at = (key, size = 1000) => table.routes.find((r) => r.key === key && r.size === size);
const floor = at("csrf")?.cpu_ms ?? 0;

/** One request's figures; CPU is the local figure above the trivial route's (see docs/cost.md). */
function perRequest(key, size) {
  const r = at(key, size);
  if (!r || r.error) throw new Error(`docs/cost.json has no figures for ${key} at ${size}`);
  return {
    requests: 1,
    cpu: Math.max(0, r.cpu_ms - floor),
    read: r.rows_read,
    written: r.rows_written,
    durableObjects: r.do,
    r2a: r.r2_a,
    r2b: r.r2_b,
  };
}

const add = (a, b, k = 1) => {
  for (const f of Object.keys(b)) a[f] = (a[f] ?? 0) + b[f] * k;
  return a;
};

/** A person's day (their devices together), from USAGE. */
function personDay(size) {
  const day = {};
  for (const [key, times] of Object.entries(USAGE.perPerson))
    add(day, perRequest(key, size), times);
  for (const [key, times] of Object.entries(USAGE.perDevice))
    add(day, perRequest(key, size), times * USAGE.devices);
  return day;
}

function population(name, people, size = 1000) {
  const day = add({}, personDay(size), people);
  const month = add({}, day, 30);
  const free = PLANS.free;
  const fits = [
    ["requests", day.requests <= free.requestsPerDay],
    ["rows read", day.read <= free.rowsReadPerDay],
    ["rows written", day.written <= free.rowsWrittenPerDay],
    ["Durable Object requests", day.durableObjects <= free.durableObjectRequestsPerDay],
  ];
  const paid = PLANS.paid;
  const over = (used, included, perMillion) => (Math.max(0, used - included) / 1e6) * perMillion;
  const bill =
    paid.base +
    over(month.requests, paid.requests, paid.perMillionRequests) +
    over(month.cpu, paid.cpuMs, paid.perMillionCpuMs) +
    over(month.read, paid.rowsRead, paid.perMillionRowsRead) +
    over(month.written, paid.rowsWritten, paid.perMillionRowsWritten) +
    over(month.durableObjects, paid.durableObjectRequests, paid.perMillionDurableObjectRequests) +
    over(month.r2a, paid.r2ClassA, paid.perMillionR2ClassA) +
    over(month.r2b, paid.r2ClassB, paid.perMillionR2ClassB);
  return { name, people, day, month, fits, bill };
}

const populations = [
  population("a family (5 people)", 5),
  population("100 users", 100),
  population("10,000 users", 10_000),
];

/** One idle, unlocked device for an hour, with live sync and without it. */
const idle = Object.fromEntries(
  Object.entries(IDLE_HOUR).map(([mode, counts]) => {
    const hour = {};
    for (const [key, times] of Object.entries(counts)) add(hour, perRequest(key, 1000), times);
    return [mode, hour];
  }),
);

writeFileSync(join(ROOT, values.out), render({ table, populations, idle, floor }));
console.log(`wrote ${values.out}`);
for (const p of populations)
  console.log(
    `${p.name.padEnd(22)} ${Math.round(p.day.requests).toLocaleString("en")} requests/day, ${Math.round(p.day.read).toLocaleString("en")} rows read/day, ${Math.round(p.day.written).toLocaleString("en")} written/day; free plan: ${
      p.fits.every(([, ok]) => ok)
        ? "fits"
        : `over on ${p.fits
            .filter(([, ok]) => !ok)
            .map(([n]) => n)
            .join(", ")}`
    }; paid: $${p.bill.toFixed(2)}/month`,
  );
