// Recovery bench (docs/decisions/recovery.md, "Recovery: dead man's switch and emergency access"): the dead man's switch status read (switch + 10 recipients + 20 log
// lines), a check-in (D1 batch plus a Durable Object alarm reschedule), and the emergency list,
// beside a trivial authenticated route of the same worker, for a user whose switch the sign-in hook
// has to consider on every request.
//   node bench/recovery.mjs [--seconds 10] [--connections 8] [--port 8780]
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { ensureWrk, fmt, signDevToken, startWorker, writeSql, wrk } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "8" },
    port: { type: "string", default: "8780" },
  },
});
const opts = { seconds: Number(values.seconds), connections: Number(values.connections) };

ensureWrk();
const worker = await startWorker({ port: Number(values.port), name: "recovery" });
try {
  const userId = "bench-owner";
  const email = "bench-owner@example.test";
  const token = await signDevToken({ sub: userId, email });
  const headers = { Authorization: `Bearer ${token}` };
  const csrf = (await (await fetch(`${worker.base}/api/auth/csrf-token`, { headers })).json())
    .csrfToken;
  const post = (path, body) =>
    fetch(`${worker.base}${path}`, {
      method: "POST",
      headers: { ...headers, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  const created = await post("/api/dead-man-switch", {
    inactivity_days: 30,
    notify_at_days: [7, 3, 1],
  });
  if (created.status !== 201)
    throw new Error(`switch create failed: ${created.status} ${await created.text()}`);
  for (let i = 0; i < 10; i++) {
    const r = await post("/api/dead-man-switch/recipients", {
      recipient_email: `heir${i}@example.test`,
      wrapped_recovery_key: Buffer.from(`key-${i}-`.repeat(8)).toString("base64"),
    });
    if (r.status !== 201) throw new Error(`recipient add failed: ${r.status}`);
  }
  const now = Date.now();
  const logs = Array.from(
    { length: 200 },
    (_, i) =>
      `('log${i}','${userId}','check_in','{}','${new Date(now - i * 60_000).toISOString()}')`,
  );
  const contacts = Array.from({ length: 20 }, (_, i) => {
    const ts = new Date(now - i * 1000).toISOString();
    return `('c${i}','${userId}','${email}','friend${i}@example.test',NULL,'pending_invite',24,'hash${i}','${ts}','key','salt',NULL,NULL,NULL,NULL,'${ts}','${ts}')`;
  });
  worker.sql(
    writeSql("recovery-seed", [
      `INSERT INTO dead_man_switch_logs (id,owner_id,action,details,timestamp) VALUES ${logs.join(",")}`,
      `INSERT INTO emergency_contacts (id,owner_id,owner_email,contact_email,contact_user_id,status,wait_hours,invite_token_hash,invite_expires_at,wrapped_access_key,invite_salt,requested_at,grant_at,granted_at,expires_at,created_at,updated_at) VALUES ${contacts.join(",")}`,
    ]),
  );
  // The seed takes long enough for wrangler to drop the idle keep-alive socket; one retry covers it.
  const getJson = async (path) => {
    try {
      return await (await fetch(`${worker.base}${path}`, { headers })).json();
    } catch {
      return (await fetch(`${worker.base}${path}`, { headers })).json();
    }
  };
  const status = await getJson("/api/dead-man-switch");
  const list = await getJson("/api/vault/emergency");
  console.log(
    `sanity: status ${status.switch.status}, ${status.recipients.length} recipients, ${status.recent_logs.length} log lines, days_remaining ${status.days_remaining}; ${list.as_owner.length} emergency contacts`,
  );

  const lua = join(ROOT, "bench", "out", "check-in.lua");
  writeFileSync(lua, `wrk.method = "POST"\nwrk.headers["x-csrf-token"] = "${csrf}"\n`);

  const cases = [
    ["trivial (GET /api/auth/csrf-token)", "/api/auth/csrf-token", {}],
    ["switch status (GET /api/dead-man-switch)", "/api/dead-man-switch", {}],
    ["emergency list (GET /api/vault/emergency)", "/api/vault/emergency", {}],
    [
      "check-in (POST /api/dead-man-switch/check-in)",
      "/api/dead-man-switch/check-in",
      { script: lua },
    ],
  ];
  wrk(`${worker.base}/api/auth/csrf-token`, headers, { ...opts, seconds: 3 });
  const results = [];
  for (const [label, path, extra] of cases) {
    const r = wrk(`${worker.base}${path}`, headers, { ...opts, ...extra });
    results.push(r);
    console.log(
      `${label.padEnd(50)} p50 ${fmt(r.p50).padStart(7)} ms  p99 ${fmt(r.p99).padStart(7)} ms  ${fmt(r.rps, 0).padStart(6)} req/s  non-2xx ${r.non2xx}`,
    );
  }
  const [base, st, em, ci] = results;
  console.log(
    `status p99 / trivial p99 = ${fmt(st.p99 / base.p99)}x; emergency list = ${fmt(em.p99 / base.p99)}x; check-in = ${fmt(ci.p99 / base.p99)}x`,
  );
} finally {
  worker.stop();
}
