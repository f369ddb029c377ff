#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
npx tsc --noEmit -p .
mkdir -p test-artifacts
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest.json "$@" || status=$?
# A plain closing line that any CI can read.
node -e '
  const r = JSON.parse(require("fs").readFileSync("test-artifacts/vitest.json", "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`Tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' || true
exit $status
