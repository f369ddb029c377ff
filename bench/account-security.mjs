// Account-security bench (docs/decisions/auth.md, "Auth: account 2FA, entry TOTP, trusted devices, notifications"): 2FA status, device list and re-registration, the notification
// list over 1,000 stored notifications, and a legacy entry's TOTP code, beside a trivial route.
//   node bench/account-security.mjs [--seconds 10] [--connections 8] [--port 8740]
import { execFileSync } from "node:child_process";
import { createHash, webcrypto } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { ensureWrk, fmt, signDevToken, startWorker, writeSql, wrk } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "8" },
    port: { type: "string", default: "8740" },
  },
});
const opts = { seconds: Number(values.seconds), connections: Number(values.connections) };

/** The service's seal() (DECISIONS D10), so the bench can plant a legacy secret as a migration would. */
async function seal(keyB64, plaintext, aad) {
  const raw = Buffer.from(keyB64, "base64");
  const key = await webcrypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
  const iv = webcrypto.getRandomValues(new Uint8Array(12));
  const ct = await webcrypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(aad) },
    key,
    new TextEncoder().encode(plaintext),
  );
  const kid = createHash("sha256").update(raw).digest("hex").slice(0, 16);
  return JSON.stringify({
    kid,
    iv: Buffer.from(iv).toString("base64"),
    ct: Buffer.from(ct).toString("base64"),
  });
}

function devVar(name) {
  const line = readFileSync(join(ROOT, ".dev.vars"), "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name}=`));
  return line.slice(name.length + 1);
}

const q = (s) => `'${String(s).replace(/'/g, "''")}'`;

ensureWrk();
const worker = await startWorker({ port: Number(values.port), name: "account-security" });
try {
  const userId = "bench-security-user";
  const token = await signDevToken({ sub: userId, email: "bench@example.test" });
  const headers = { Authorization: `Bearer ${token}` };
  // One retry: a keep-alive socket from the start-up health check may have been closed while seeding.
  const step = async (label, fn) => {
    try {
      return await fn();
    } catch {
      try {
        return await fn();
      } catch (err) {
        throw new Error(`${label}: ${err.cause?.message ?? err.message}`);
      }
    }
  };
  const post = (path, body) =>
    fetch(`${worker.base}${path}`, {
      method: "POST",
      headers: { ...headers, "x-csrf-token": csrfToken, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  const now = Date.now();
  const stmts = [];
  for (let i = 0; i < 1000; i++) {
    const ts = new Date(now - i * 1000).toISOString();
    stmts.push(
      `INSERT INTO notifications (id, user_id, type, title, body, color, metadata, is_read, created_at) VALUES (${q(`n${i}`)}, ${q(userId)}, 'info', ${q(`Title ${i}`)}, ${q("Body text ".repeat(20))}, 'default', '{}', ${i % 2}, ${q(ts)})`,
    );
  }
  for (let i = 0; i < 20; i++) {
    const ts = new Date(now - i * 60_000).toISOString();
    const fp = createHash("sha256").update(`device-${i}`).digest("hex");
    stmts.push(
      `INSERT INTO devices (id, user_id, device_fingerprint, device_name, device_type, os, browser, ip_address, trust_level, is_current, last_active_at, trusted_at, created_at) VALUES (${q(`d${i}`)}, ${q(userId)}, ${q(fp)}, ${q(`Device ${i}`)}, 'desktop', 'Linux', 'Chrome', '127.0.0.1', 'trusted', 0, ${q(ts)}, ${q(ts)}, ${q(ts)})`,
    );
  }
  stmts.push(
    `INSERT INTO passwords (id, user_id, name, website, tags, encryption_version, wrapped_item_key, encrypted_data, search_tokens, created_at, updated_at, has_totp) VALUES ('totp-entry', ${q(userId)}, 'Legacy', 'example.com', '[]', 3, 'AAAA', 'AAAA', '[]', ${q(new Date(now).toISOString())}, ${q(new Date(now).toISOString())}, 1)`,
  );
  const sealed = await seal(
    devVar("DATA_ENCRYPTION_KEY"),
    "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
    `entry_totp:${userId}:totp-entry`,
  );
  stmts.push(
    `INSERT INTO password_totp (password_id, user_id, zero_trust, secret_sealed, algorithm, digits, period, created_at, updated_at) VALUES ('totp-entry', ${q(userId)}, 0, ${q(sealed)}, 'SHA-1', 6, 30, ${q(new Date(now).toISOString())}, ${q(new Date(now).toISOString())})`,
  );
  worker.sql(writeSql("account-security-seed", stmts));
  const { csrfToken } = await step("csrf", async () =>
    (await fetch(`${worker.base}/api/auth/csrf-token`, { headers })).json(),
  );
  const enrolled = await step("enroll", () => post("/api/2fa/enroll", {}));
  const fingerprint = createHash("sha256").update("device-3").digest("hex");

  const get = (path) =>
    step(path, async () => (await fetch(`${worker.base}${path}`, { headers })).json());
  const list = await get("/api/notifications?limit=50");
  const devices = await get("/api/devices");
  const code = await get("/api/passwords/totp-entry/totp/code");
  const reg = await step("register", () => post("/api/devices", { fingerprint, deviceName: "x" }));
  console.log(
    `sanity: enroll ${enrolled.status}; notifications page ${list.notifications.length}, unread_count ${list.unread_count}; devices ${devices.devices.length}; code ${/^\d{6}$/.test(code.code) ? "ok" : "bad"} remaining ${code.remaining}; re-register ${reg.status}`,
  );

  const luaFile = join(ROOT, "bench", "out", "register-device.lua");
  writeFileSync(
    luaFile,
    `wrk.method = "POST"\nwrk.body = '${JSON.stringify({ fingerprint, deviceName: "x", os: "Linux", browser: "Chrome" })}'\n`,
  );
  const postHeaders = { ...headers, "x-csrf-token": csrfToken, "content-type": "application/json" };

  const cases = [
    ["trivial (GET /api/auth/csrf-token)", "/api/auth/csrf-token", headers],
    ["2FA status (GET /api/2fa/status)", "/api/2fa/status", headers],
    ["device list of 20 (GET /api/devices)", "/api/devices", headers],
    ["notifications 50 of 1000 (GET /api/notifications)", "/api/notifications?limit=50", headers],
    [
      "unread only (GET /api/notifications?unread_only)",
      "/api/notifications?limit=50&unread_only=true",
      headers,
    ],
    ["legacy TOTP code (GET .../totp/code)", "/api/passwords/totp-entry/totp/code", headers],
  ];
  wrk(`${worker.base}${cases[0][1]}`, headers, { ...opts, seconds: 3 });
  const line = (label, r) =>
    console.log(
      `${label.padEnd(52)} p50 ${fmt(r.p50).padStart(7)} ms  p99 ${fmt(r.p99).padStart(7)} ms  ${fmt(r.rps, 0).padStart(6)} req/s  non-2xx ${r.non2xx}`,
    );
  let base;
  for (const [label, path, h] of cases) {
    const r = wrk(`${worker.base}${path}`, h, opts);
    base ??= r;
    line(label, r);
  }
  const args = [
    "-t",
    "1",
    "-c",
    String(opts.connections),
    "-d",
    `${opts.seconds}s`,
    "--latency",
    "-s",
    luaFile,
  ];
  for (const [k, v] of Object.entries(postHeaders)) args.push("-H", `${k}: ${v}`);
  const out = execFileSync("wrk", [...args, `${worker.base}/api/devices`], { encoding: "utf8" });
  const toMs = (s) => {
    const m = /^([\d.]+)(us|ms|s)$/.exec(s?.trim() ?? "");
    return m ? Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]] : NaN;
  };
  const pct = (p) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(out)?.[1]);
  line("device re-register (POST /api/devices, 2-statement batch)", {
    p50: pct(50),
    p99: pct(99),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  });
  console.log(`trivial p99 ${fmt(base.p99)} ms is the baseline for the ratios above`);
} finally {
  worker.stop();
}
