#!/usr/bin/env bash
# The checks of `npm test` that need no server and write nothing the suites read: the type checks,
# the layering rules, the route table, the client's wire types, and the tooling's own suite in Node. scripts/test.sh runs
# this beside the production dry run and the worker passes (the dry run itself is not here: it
# rebuilds public/, which the suites' runtimes serve, so it runs before them). Every check runs even when one before it failed; each failure
# is named in test-artifacts/checks-failed.txt (the closing summary counts and lists them), and the
# exit status is non-zero when any failed. Arguments are a file filter for the Node suite.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/node-runtime.sh
failed=test-artifacts/checks-failed.txt
: >"$failed"
filtered=()
[ $# -gt 0 ] && filtered=(--passWithNoTests)
# Build info kept between runs (node_modules/.cache, never committed): a second run re-checks only
# what changed. A fresh clone checks everything, as before.
cache=node_modules/.cache/tsc
mkdir -p "$cache"
check() {
  local name=$1
  shift
  local started=$SECONDS
  echo "--- check: $name"
  if "$@"; then
    echo "--- check: $name passed in $((SECONDS - started)) s"
  else
    echo "--- check: $name FAILED in $((SECONDS - started)) s"
    echo "$name" >>"$failed"
  fi
}
check "tsc -p . (server and tests)" npx tsc --noEmit -p . --incremental --tsBuildInfoFile "$cache/root.tsbuildinfo"
check "tsc -p client" npx tsc -p client --incremental --tsBuildInfoFile "$cache/client.tsbuildinfo"
check "tsc -p client/tsconfig.sw.json" npx tsc -p client/tsconfig.sw.json --incremental --tsBuildInfoFile "$cache/client-sw.tsbuildinfo"
check "tsc -p client/test" npx tsc -p client/test --incremental --tsBuildInfoFile "$cache/client-test.tsbuildinfo"
check "tsc -p extension" npx tsc -p extension --incremental --tsBuildInfoFile "$cache/extension.tsbuildinfo"
check "tsc -p cli" npx tsc -p cli --incremental --tsBuildInfoFile "$cache/cli.tsbuildinfo"
# The layering rules (.dependency-cruiser.cjs): a new crossing between layers or domains fails here.
check "depcruise (layers)" npx depcruise src durable-objects core client/src extension/src cli --output-type err
# One format for the whole tree (biome.json, formatter only): a file written by hand in another
# shape fails here and its difference is printed; `npx biome format --write .` puts it right.
check "format (biome)" npx biome format .
# docs/routes.md is generated from the route registry; a route added without regenerating fails here.
check "route table (docs/routes.md)" node scripts/route-table.mjs --check
# The web client's wire types are generated from the same registry's OpenAPI document: a route
# schema changed without regenerating fails here (and then the client's compile, if it disagrees).
check "wire types (core/api/wire.gen.ts)" node scripts/wire-types.mjs --check
# A comment or doc that cites a docs file and section title, or a numbered decision (D20), that no
# longer exists (a section renamed, a file split) fails here with its file and line.
check "references (docs files, sections, D numbers)" node scripts/check-references.mjs
# The tooling's own suites in Node (vitest.node.config.mts): the production check, the first deploy.
# Its failures are counted from its JSON like the other suites', so it is not listed as a check.
echo "--- the node suite (vitest.node.config.mts)"
node_status=0
npx vitest run -c vitest.node.config.mts "${filtered[@]}" --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest-node.json "$@" || node_status=$?
[ ! -s "$failed" ] && [ "$node_status" -eq 0 ]
