#!/usr/bin/env bash
# Both suites: the worker's (inside workerd) and the web client's (Node + a real Chromium against
# wrangler dev, vitest.browser.config.mts). Each writes its own JSON; the closing line sums them.
set -euo pipefail
cd "$(dirname "$0")/.."
# A supported node (22 or later) first on PATH for everything below (scripts/lib/node-runtime.sh).
source scripts/lib/node-runtime.sh
bash scripts/setup.sh
mkdir -p test-artifacts
rm -f test-artifacts/vitest-node.json test-artifacts/vitest.json test-artifacts/vitest.log test-artifacts/vitest-shards.json test-artifacts/vitest-shards.log test-artifacts/vitest-browser.json test-artifacts/checks.log test-artifacts/checks-failed.txt
status=0
# A file filter usually names files of one suite only; the other then has nothing to run.
filtered=()
[ $# -gt 0 ] && filtered=(--passWithNoTests)
# The checks that need no server (five type checks, the layers, the format, the route table, the
# Node suite: scripts/lib/checks.sh) run in the background beside the production dry run and the worker
# passes, their log held back and printed after them; a failed check no longer stops the suites,
# it fails the run and is counted and named in the closing summary (docs/development.md, "The
# test run: its layout, and where the time went (before and after)").
bash scripts/lib/checks.sh "$@" >test-artifacts/checks.log 2>&1 &
checks=$!
trap 'kill "$checks" 2>/dev/null || true' EXIT
# Production binds every binding, queue, cron and setting the worker uses, and wrangler deploys it
# without a warning (environments inherit no bindings: one added at the top alone fails here).
# Before the suites, not beside them: its deploy runs wrangler.toml's [build], which deletes and
# rebuilds public/, the directory the worker passes' runtimes and the browser suite's serve.
dry_run=0
node scripts/check-production.mjs --dry-run || dry_run=$?
# The worker suite twice at the same time: on one database, and again on three shard databases and
# a directory of their own (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): users
# land on different shards, and the move tests, which need two shards, run only there. The second
# pass takes only the files whose code reaches the directory or every shard (docs/decisions/operations.md,
# "Operations: the three-shard pass runs the files that place data"; test/support/shard-pass.ts).
# The two share nothing but the cores (each its own workerd with in-memory storage, its own
# stand-in servers on ports of their own), and much of each pass waits on Chromium, mail and
# timers, so together they take less than one after the other ("Operations: the two worker passes
# run at the same time"). The shard pass's log is held back and printed whole after the first's.
# vitest itself, not npx, so that `$!` is the pass and an interrupted run stops it too.
VAULT_SHARDS=3 VAULT_SHARD_PASS=placement node_modules/.bin/vitest run "${filtered[@]}" --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest-shards.json "$@" >test-artifacts/vitest-shards.log 2>&1 &
shards=$!
trap 'kill "$shards" "$checks" 2>/dev/null || true' EXIT
# Its output is kept as well (test-artifacts/vitest.log) for the closing summary's reading of the
# worker's own error log.
npx vitest run "${filtered[@]}" --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest.json "$@" 2>&1 | tee test-artifacts/vitest.log || status=$?
shard_status=0
wait "$shards" || shard_status=$?
echo "--- the three-shard pass (VAULT_SHARDS=3 VAULT_SHARD_PASS=placement), run beside the one above:"
cat test-artifacts/vitest-shards.log
[ "$shard_status" -eq 0 ] || status=$shard_status
checks_status=0
wait "$checks" || checks_status=$?
echo "--- the checks and the node suite (scripts/lib/checks.sh), run beside the worker passes:"
cat test-artifacts/checks.log
[ "$checks_status" -eq 0 ] || status=$checks_status
if [ "$dry_run" -ne 0 ]; then
  echo "production configuration (dry run)" >>test-artifacts/checks-failed.txt
  status=$dry_run
fi
trap - EXIT
npx vitest run -c vitest.browser.config.mts "${filtered[@]}" --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest-browser.json "$@" || status=$?
# A plain closing summary that any CI can read. A CI log may keep only its tail, so the summary
# names each suite's count and its first failures (a file that failed to load counts as one).
node -e '
  const fs = require("fs");
  const t = { passed: 0, failed: 0, skipped: 0 };
  const first = (m) => String(m ?? "").split("\n").find((l) => l.trim()) ?? "";
  // A failed check (type check, layers, route table, production dry run) counts as one failure.
  const checks = fs.existsSync("test-artifacts/checks-failed.txt") ? fs.readFileSync("test-artifacts/checks-failed.txt", "utf8").split("\n").filter(Boolean) : null;
  if (!checks) console.log("checks: missing (they did not finish)");
  else {
    console.log(`checks (type checks, layers, route table, production dry run): ${checks.length} failed`);
    for (const c of checks) console.log(`  ${c}: failed (test-artifacts/checks.log)`);
    t.failed += checks.length;
  }
  for (const f of ["test-artifacts/vitest-node.json", "test-artifacts/vitest.json", "test-artifacts/vitest-shards.json", "test-artifacts/vitest-browser.json"]) {
    if (!fs.existsSync(f)) { console.log(`${f}: missing (that suite did not finish)`); continue; }
    const r = JSON.parse(fs.readFileSync(f, "utf8"));
    t.passed += r.numPassedTests; t.failed += r.numFailedTests; t.skipped += r.numPendingTests + r.numTodoTests;
    const failures = [];
    for (const file of r.testResults) {
      const name = file.name.replace(process.cwd() + "/", "");
      const failed = file.assertionResults.filter((a) => a.status === "failed");
      if (file.status === "failed" && failed.length === 0) failures.push(`${name}: ${first(file.message)}`);
      for (const a of failed) failures.push(`${name} > ${a.fullName}: ${first(a.failureMessages[0])}`);
    }
    console.log(`${f}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.testResults.filter((file) => file.status === "failed").length} file(s) failed`);
    for (const line of failures.slice(0, 15)) console.log(`  ${line.slice(0, 300)}`);
    if (failures.length > 15) console.log(`  ... and ${failures.length - 15} more`);
    // A worker runtime whose configuration did not parse answers every request 500 "Service
    // misconfigured", and its log names the variables (never their values). A CI log may keep only
    // this tail, so the names are repeated here for a worker pass that failed.
    const log = f.replace(/\.json$/, ".log");
    if (failures.length && fs.existsSync(log)) {
      const names = new Map();
      for (const m of fs.readFileSync(log, "utf8").matchAll(/"msg":"configuration invalid or missing","names":(\[[^\]]*\])/g))
        names.set(m[1], (names.get(m[1]) ?? 0) + 1);
      for (const [n, count] of names) console.log(`  the worker logged "configuration invalid or missing" ${count} time(s) naming ${n}`);
    }
  }
  console.log(`Tests: ${t.passed} passed, ${t.failed} failed` + (t.skipped ? `, ${t.skipped} skipped` : ""));
' || true
exit $status
