#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
# A supported node (22 or later) first on PATH for everything below (scripts/lib/node-runtime.sh).
source scripts/lib/node-runtime.sh
bash scripts/setup.sh
node scripts/lib/dev-identity.mjs
node scripts/db-migrate.mjs
PORT="${PORT:-8787}"
export PORT
# The local OpenID provider (sign-in at http://localhost:${PORT}/), stopped with this script.
node scripts/dev-oidc.mjs &
IDP_PID=$!
trap 'kill "$IDP_PID" 2>/dev/null || true' EXIT INT TERM
cat <<TXT

  Credential vault on http://localhost:${PORT}/ (sign in with a development user shown on the
  provider's login page); API on http://localhost:${PORT}/api (OpenAPI: /api/openapi.json)
  A token for scripts:
    npm run token -- --sub user-1 --email user-1@example.test [--admin] [--auth-age <seconds>]
  Then: curl -H "Authorization: Bearer \$TOKEN" http://localhost:${PORT}/api/auth/csrf-token
  Mail the vault sends (invitations, reminders) is kept, not sent: read it, links working, at
    http://localhost:${PORT}/dev/mail

TXT
# The app's own address follows PORT: links in mail, the sign-in redirect and the origin checks.
WRANGLER_SEND_METRICS=false npx wrangler dev --port "${PORT}" --ip 127.0.0.1 --var "APP_ORIGIN:http://localhost:${PORT}"
