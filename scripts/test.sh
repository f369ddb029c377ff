#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
npx tsc --noEmit -p .
npx vitest run "$@"
