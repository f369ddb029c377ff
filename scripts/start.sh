#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
node scripts/lib/dev-identity.mjs
npx wrangler d1 migrations apply DB --local
PORT="${PORT:-8787}"
cat <<TXT

  Credential vault API on http://localhost:${PORT}/api (OpenAPI: /api/openapi.json)
  Get a token for the development identity provider:
    npm run token -- --sub user-1 --email user-1@example.test [--admin] [--auth-age <seconds>]
  Then: curl -H "Authorization: Bearer \$TOKEN" http://localhost:${PORT}/api/auth/csrf-token

TXT
WRANGLER_SEND_METRICS=false exec npx wrangler dev --port "${PORT}" --ip 127.0.0.1
