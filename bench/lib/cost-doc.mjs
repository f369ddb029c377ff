// docs/cost.md as bench/cost-model.mjs writes it: the plans' prices and allowances, the assumed
// day of use, and the text around the computed tables.

/**
 * Cloudflare's published figures, read from its documentation on the day the model was written:
 * Workers limits https://developers.cloudflare.com/workers/platform/limits/ , D1 limits
 * https://developers.cloudflare.com/d1/platform/limits/ , Durable Objects pricing
 * https://developers.cloudflare.com/durable-objects/platform/pricing , Workers Standard pricing
 * (as Workflows pricing restates it) https://developers.cloudflare.com/workflows/reference/pricing/ .
 */
export const PLANS = {
  free: {
    requestsPerDay: 100_000,
    cpuMsPerRequest: 10,
    queriesPerRequest: 50,
    rowsReadPerDay: 5_000_000,
    rowsWrittenPerDay: 100_000,
    durableObjectRequestsPerDay: 100_000,
  },
  paid: {
    base: 5,
    requests: 10_000_000,
    perMillionRequests: 0.3,
    cpuMs: 30_000_000,
    perMillionCpuMs: 0.02,
    rowsRead: 25_000_000_000,
    perMillionRowsRead: 0.001,
    rowsWritten: 50_000_000,
    perMillionRowsWritten: 1.0,
    durableObjectRequests: 1_000_000,
    perMillionDurableObjectRequests: 0.15,
    r2ClassA: 1_000_000,
    perMillionR2ClassA: 4.5,
    r2ClassB: 10_000_000,
    perMillionR2ClassB: 0.36,
  },
};

/**
 * A normal day, per person with 3 devices and 1,000 entries, live sync on. An assumption, not a
 * measurement: change it here and run the model again.
 */
export const USAGE = {
  devices: 3,
  perDevice: {
    // Unlocks (each checks the session and fetches a CSRF token), and the pulls: one at each unlock,
    // a safety pull every 5 minutes for the 2 hours a device is open (core/sync/live-sync.ts).
    unlock: 3,
    csrf: 3,
    // Live sync's WebSocket, opened at each unlock.
    "live-connect": 3,
    "delta-0": 3 + 24,
    // The other devices' changes reach each device as a delta pull (a small one: bounded by 100's).
    "delta-100": 1,
    // A full pull once a month (a new device, a reinstall, a cursor older than 30 days).
    "full-pull": 1 / 30,
  },
  perPerson: {
    // Autofill lookups in the extension.
    match: 15,
    // Changes: a new entry, two edits, a deletion every five days, each pushed as it is made.
    "push-1": 3.2,
    // An attachment added every ten days, opened every five.
    "attachment-up": 0.1,
    "attachment-down": 0.2,
    // The password health report once a month: one breach range per password.
    "breach-range": 1000 / 30,
  },
};

/** One device left open and unlocked for an hour, visible, no changes anywhere. */
export const IDLE_HOUR = {
  // Without live sync the sync engine pulls every 30 s while visible (core/sync/sync-engine.ts).
  "without live sync": { "delta-0": 120 },
  // With it: the safety pull every 5 minutes; the keepalive every 45 s is answered by the
  // runtime without waking the hub (setWebSocketAutoResponse), so it is not a worker request.
  "with live sync": { "delta-0": 12, "live-connect": 0 },
};

const n = (x, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString("en", { maximumFractionDigits: d }) : "n/a";

function requestTable(table, floor) {
  const rows = table.routes.map((r) => {
    if (r.error)
      return `| ${r.route} | ${n(r.size)} | not measured: ${r.error.replace(/\|/g, "/")} |||||||||`;
    const fits =
      r.d1 <= PLANS.free.queriesPerRequest && r.cpu_ms - floor <= PLANS.free.cpuMsPerRequest;
    return `| ${r.route} | ${n(r.size)} | ${r.d1} | ${n(r.rows_read)} | ${n(r.rows_written)} | ${r.do} | ${r.r2_a} / ${r.r2_b} | ${r.queue} | ${r.fetch} | ${n(r.cpu_ms, 1)} | ${n(Math.max(0, r.cpu_ms - floor), 1)} | ${r.routine ? (fits ? "yes" : "**no**") : "-"} |`;
  });
  return [
    "| Request | Entries | D1 statements | Rows read | Rows written | DO calls | R2 A / B | Queue | Fetches | CPU ms (local) | CPU ms above floor | Free plan |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...rows,
  ].join("\n");
}

function populationTable(populations) {
  return [
    "| Who | Requests / day | CPU ms / day | Rows read / day | Rows written / day | DO requests / day | Requests / month | Rows read / month | Rows written / month | Free plan | Paid plan / month |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ...populations.map(
      (p) =>
        `| ${p.name} | ${n(p.day.requests)} | ${n(p.day.cpu)} | ${n(p.day.read)} | ${n(p.day.written)} | ${n(p.day.durableObjects)} | ${n(p.month.requests)} | ${n(p.month.read)} | ${n(p.month.written)} | ${
          p.fits.every(([, ok]) => ok)
            ? "fits"
            : `over on ${p.fits
                .filter(([, ok]) => !ok)
                .map(([name]) => name)
                .join(", ")}`
        } | $${p.bill.toFixed(2)} |`,
    ),
  ].join("\n");
}

function idleTable(idle) {
  return [
    "| One idle device, one hour | Requests | CPU ms above floor | Rows read | Rows written | DO requests |",
    "|---|---:|---:|---:|---:|---:|",
    ...Object.entries(idle).map(
      ([mode, h]) =>
        `| ${mode} | ${n(h.requests)} | ${n(h.cpu)} | ${n(h.read)} | ${n(h.written)} | ${n(h.durableObjects)} |`,
    ),
  ].join("\n");
}

export function render({ table, populations, idle, floor }) {
  return `# What each request costs, and the free plan

Written by \`node bench/cost-model.mjs\` from the figures \`npm run bench:cost\` (bench/cost.mjs)
measured on ${table.measured} and left in [cost.json](cost.json). Do not edit by hand: change the
bench, the assumed day (bench/lib/cost-doc.mjs) or the code, and run both again.

## How it is measured

The bench starts \`wrangler dev\` with \`COST_COUNTERS=true\` (src/http/request-cost.ts; a bench and
test switch, off unless set and refused in production by src/env.ts). Every API answer then carries
\`X-Request-Cost\`: the D1 statements the request ran and the rows D1 reported read and written
(\`meta.rows_read\` / \`rows_written\`, counted where each request's D1 session receives D1's answer,
so \`first()\` and \`raw()\` count too), Durable Object calls (each stub method call or fetch), R2
operations by billing class, queue messages and outbound fetches. A streamed answer (a full pull)
logs its whole cost when its body ends, and the bench reads that. Work left to \`waitUntil\` after
the answer is not counted. Counts are exact; each row is the highest over ${table.repeat} requests after two
unmeasured ones (what a first request fills, such as the user's shard
in the isolate's map, is thereby left out).

CPU is the workerd runtime process's user+system time (\`/proc/<pid>/stat\`, 10 ms ticks) over the
requests, less what it spends idle for as long, divided by their number. That process also runs
the local D1 (SQLite), R2, the Durable Objects and the HTTP handling, so the figure is an upper
bound of what Cloudflare bills as the Worker's CPU; "above floor" takes off the CPU of the cheapest
authenticated route (GET /api/auth/csrf-token, ${n(floor, 1)} ms here), which is mostly the runtime's own
per-request work. It was measured on a 2-core machine shared with other developers' test runs (load
average ${table.load ? `${table.load[0]} at the start and ${table.load[1]} at the end` : "not recorded"}), so it is noisy to a few ms; the counts are not.

**The free plan's 10 ms cannot be checked as such here: it is no more than this runtime's floor.**
The trivial route (no D1 statement, one Durable Object call for the rate limit) measured the same
way takes ${n(floor, 1)} ms, about the whole allowance, and no request shows much less; so the
free plan's 10 ms is judged against the CPU above that floor.
Even that figure holds the local SQLite's work for each D1 statement, which on Cloudflare runs in
D1 and not in the Worker's CPU time; the bench cannot separate the isolate's JavaScript from it, so
a "no" for CPU alone says the request may not fit, not that it does not. The statement counts are
exact and are what the column can vouch for.

## Per request

${requestTable(table, floor)}

"Free plan" (routine requests): at most ${PLANS.free.queriesPerRequest} D1 statements and at most ${PLANS.free.cpuMsPerRequest} ms of CPU above the floor. The
statement count is the conservative reading of D1's "queries per Worker invocation" (each statement
of a batch counted).

Split to fit: a push of 50 mutations passes the 50 statements (about seven plus one a mutation), so
the client pushes a longer queue 40 at a time (core/sync/sync-engine.ts, \`MAX_BATCH\`; the row
"push, 40 mutations"). An import of 1,000 and a full pull of 10,000 stay well under 50 statements
(the pull reads its pages in one streamed answer); their CPU is what the paragraph above says of
it. The passkey rows are two requests each, the page's entries looked up and the entry pushed with
the new passkey or its raised sign counter (the WebAuthn exchange stays in the browser's vault);
each of the two is a Worker invocation of its own. The reset start row is the request alone: its
task names no key to deliver a password to, so the queue's consumer ends it before any browser or
mailbox is opened.

## A day, a month

${populationTable(populations)}

The day is an assumption (bench/lib/cost-doc.mjs, USAGE): per person, 3 devices each unlocked 3
times and open 2 hours with live sync, 15 autofill lookups, 3.2 changes, an attachment every ten
days, a full pull per device a month and the health report's breach check once a month; vaults of
1,000 entries. CPU is the local figure above the floor, so the CPU term of the paid bill is an upper
bound. The paid plan is the Workers Paid plan's $5 a month with its included usage; Durable Object
duration is left out (the live-sync hub hibernates between notices; the rate limiter and idempotency
objects run for milliseconds per request).

## One idle device

${idleTable(idle)}

Without live sync an open, visible device pulls every 30 seconds (core/sync/sync-engine.ts); with
it, the hub tells the device when something changed and the device still pulls every 5 minutes as
a safety net. Its keepalive every 45 seconds is answered by the runtime
(\`setWebSocketAutoResponse\`) without waking the hub, so it costs neither a Worker request nor hub
duration.

## The free plan

\`wrangler deploy --env free\` (wrangler.toml, \`[env.free]\`; checked with production by
\`scripts/check-production.mjs\` and its dry run in \`npm test\`) deploys the same worker for
Cloudflare's Workers Free plan. What each capability allows there:

| Capability | Free plan | What the app does there |
|---|---|---|
| Requests | 100,000 a day; 10 ms CPU and 50 subrequests per request ([Workers limits](https://developers.cloudflare.com/workers/platform/limits/)) | The routine requests above |
| D1 | 50 queries per invocation, 5 million rows read and 100,000 written a day, 10 databases of 500 MB ([D1 limits](https://developers.cloudflare.com/d1/platform/limits/)) | One directory and one shard: two databases |
| Durable Objects | SQLite-backed classes only; 100,000 requests and 13,000 GB-s a day ([Durable Objects pricing](https://developers.cloudflare.com/durable-objects/platform/pricing)) | Every class here is SQLite-backed (\`new_sqlite_classes\`) |
| Browser Rendering | 10 minutes a day, 3 browsers at once, 3 new a minute ([Browser Rendering limits](https://developers.cloudflare.com/browser-rendering/limits)) | \`MAX_LIVE_BROWSERS = 3\`, one per person; when the day's minutes are spent a reset or a session share ends with that said in words (and when to try again), not a retry loop, and the share's card shows it; a deploy without the \`BROWSER\` binding refuses both with a 503 that says so, before anything is stored (src/lib/browser-rendering.ts) |
| Queues | Not confirmed from Cloudflare's own pages in this work; a transcription of its pricing page says 10,000 operations a day | Resets and mail retries queue a message each (about 3 operations); a family stays far below |
| Cron Triggers | 5 per account | Two |
`;
}
