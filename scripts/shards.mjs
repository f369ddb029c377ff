#!/usr/bin/env node
// The operator's shard command (docs/scale.md), through the admin API of a running
// deployment (the move itself runs in the worker, which holds the D1 bindings):
//   node scripts/shards.mjs list                         the shard bindings and the directory
//   node scripts/shards.mjs move --user <id> --to DB_<n>  move one user online; run it again to
//                                                         resume a move that failed or was cut off
// --url (default http://localhost:8787) and an admin access token in VAULT_ADMIN_TOKEN or --token
// (locally: npm run -s token -- --sub ops --admin).
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string", default: "http://localhost:8787" },
    token: { type: "string" },
    user: { type: "string" },
    to: { type: "string" },
  },
});
const token = values.token ?? process.env.VAULT_ADMIN_TOKEN;
if (!token) throw new Error("an admin token is needed: --token or VAULT_ADMIN_TOKEN");
const auth = { authorization: `Bearer ${token}` };
const api = (path, init = {}) =>
  fetch(new URL(path, values.url), { ...init, headers: { ...auth, ...init.headers } });

async function answer(res) {
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return body;
}

const [command] = positionals;
if (command === "list") {
  console.log(await answer(await api("/api/admin/shards")));
} else if (command === "move") {
  if (!values.user || !values.to) throw new Error("move needs --user and --to");
  const { csrfToken } = await answer(await api("/api/auth/csrf-token"));
  const start = Date.now();
  const r = await answer(
    await api("/api/admin/shards/moves", {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": csrfToken },
      body: JSON.stringify({ user_id: values.user, to: values.to }),
    }),
  );
  console.log(
    `${r.user_id}: ${r.from} -> ${r.to}, ${r.rows_copied} rows copied, ${r.rows_deleted} deleted, ${((Date.now() - start) / 1000).toFixed(1)} s`,
  );
} else {
  throw new Error("usage: node scripts/shards.mjs list | move --user <id> --to DB_<n>");
}
