#!/usr/bin/env bash
# Installs what is missing, idempotently: a supported node (22 or later, from the npm registry when
# the machine's is older), npm packages, then the system packages the real
# components need (Chromium for Browser Rendering and the web client's browser tests, Dovecot for
# IMAP tests, OpenSSH's server for the SSH agent's login test), then points wrangler's local
# browser binding at Debian's Chromium (shared/recipes/local-browser.md), then builds the web
# client into public/.
set -euo pipefail
cd "$(dirname "$0")/.."
# A supported node (22 or later) first on PATH for everything below (scripts/lib/node-runtime.sh).
source scripts/lib/node-runtime.sh

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
# The workers test pool's Durable Object wrapper slows down with every object made (quadratic over
# a suite); mended in place until a release carries the upstream fix (scripts/lib/patch-test-pool.mjs).
node scripts/lib/patch-test-pool.mjs

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v dovecot >/dev/null 2>&1 || need+=(dovecot-imapd)
# The test starts its own sshd (test/cli/sshd.ts) by this path, not the package's service.
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "setup: missing system packages (${need[*]}); install them as root" >&2
    exit 1
  fi
fi

node scripts/lib/local-browser.mjs

# The web client (wrangler.toml [assets] serves public/, and the workers test pool needs it to exist).
node scripts/build-client.mjs
