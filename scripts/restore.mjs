#!/usr/bin/env node
// Rebuilding a deployment from a backup (docs/operations.md, "Backup and restore"), through the
// admin API of the deployment being rebuilt (the restore runs in the worker, which holds the D1
// and R2 bindings; its BACKUP_BUCKET must be the bucket the backup is in):
//   npm run restore -- list                       the backups in the bucket
//   npm run restore -- backup                     take a backup now (step after step until done)
//   npm run restore -- --backup <id> --yes        empty this deployment, then restore <id> into it
//   npm run restore -- --backup <id> --from <n>   resume a restore cut off at step n (no wipe)
// --url (default http://localhost:8787) and an admin access token in VAULT_ADMIN_TOKEN or --token
// (locally: npm run -s token -- --sub ops --admin).
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string", default: "http://localhost:8787" },
    token: { type: "string" },
    backup: { type: "string" },
    from: { type: "string" },
    yes: { type: "boolean", default: false },
  },
});
const token = values.token ?? process.env.VAULT_ADMIN_TOKEN;
if (!token) throw new Error("an admin token is needed: --token or VAULT_ADMIN_TOKEN");
const auth = { authorization: `Bearer ${token}` };
let csrf;

async function api(path, body) {
  for (;;) {
    const init = { headers: { ...auth } };
    if (body !== undefined) {
      csrf ??= (
        await (await fetch(new URL("/api/auth/csrf-token", values.url), { headers: auth })).json()
      ).csrfToken;
      Object.assign(init, { method: "POST", body: JSON.stringify(body) });
      Object.assign(init.headers, { "content-type": "application/json", "x-csrf-token": csrf });
    }
    const res = await fetch(new URL(path, values.url), init);
    // The admin routes are rate limited (120 a minute); a long restore waits its turn.
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") ?? "5")));
      continue;
    }
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
}

const [command] = positionals;
if (command === "list") {
  for (const b of (await api("/api/admin/backups")).backups)
    console.log(`${b.id}  ${b.complete ? "complete" : "unfinished"}`);
} else if (command === "backup") {
  let r = await api("/api/admin/backups", { force: true });
  while (!r.done) {
    console.log(`${r.id}: ${r.chunks} chunks, ${r.rows} rows, ${r.objects} objects`);
    r = await api("/api/admin/backups", {});
  }
  console.log(`${r.id}: complete${r.deleted.length ? `; retired ${r.deleted.join(", ")}` : ""}`);
} else if (values.backup) {
  const summary = await api(`/api/admin/backups/${values.backup}`);
  const rows = Object.values(summary.counts.rows).reduce((n, c) => n + c, 0);
  console.log(
    `backup ${summary.id} (${summary.started_at} to ${summary.finished_at}): ${rows} rows, ${summary.counts.objects} objects, ${summary.chunks} chunks`,
  );
  let step = values.from === undefined ? 0 : Number(values.from);
  if (step === 0 && !values.yes)
    throw new Error(`restoring empties every table and bucket of ${values.url} first: add --yes`);
  const start = Date.now();
  let total = { rows: 0, objects: 0 };
  while (step !== null) {
    const r = await api(`/api/admin/backups/${summary.id}/restore`, {
      step,
      confirm_wipe: step === 0,
    });
    total = { rows: total.rows + r.rows, objects: total.objects + r.objects };
    console.log(
      `step ${r.step + 1}/${r.total_steps}: ${r.step === 0 ? "emptied the deployment" : r.next === null ? "triggers recreated" : `${r.rows} rows, ${r.objects} objects`}`,
    );
    step = r.next;
  }
  console.log(
    `restored ${total.rows} rows and ${total.objects} objects in ${((Date.now() - start) / 1000).toFixed(1)} s`,
  );
} else {
  throw new Error(
    "usage: npm run restore -- list | backup | --backup <id> --yes | --backup <id> --from <step>",
  );
}
