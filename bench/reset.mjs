// Reset bench (docs/decisions/automation.md, "Automation: service registry and password reset"): time from task creation to `completed` for the local reset website under
// `wrangler dev` (the real queue, Chromium behind the BROWSER binding, a private Dovecot), and how
// much of it is browser launch (`launchMs`, timed around puppeteer.launch in the consumer).
//   node bench/reset.mjs [--runs 3] [--flow link|otp] [--port 9600] [--site-port 9601] [--imap-port 9602]
import { randomBytes, randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { compactDecrypt, exportJWK, generateKeyPair } from "jose";
import { startDovecot } from "../test/support/dovecot-lib.mjs";
import { startResetSite } from "../test/support/reset-site-lib.mjs";
import { fmt, signDevToken, startWorker } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    flow: { type: "string", default: "link" },
    port: { type: "string", default: "9600" },
    "site-port": { type: "string", default: "9601" },
    "imap-port": { type: "string", default: "9602" },
  },
});
const startPath = values.flow === "otp" ? "/otp/forgot" : "/login";
const account = "bench-reset@example.test";
const imapPassword = randomBytes(12).toString("base64url");

/** Reads the task stream, noting when each status first arrived, until an end state. */
async function follow(res, t0) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  const seen = {};
  let buf = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { seen, last: null };
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const chunk = buf.slice(0, i);
      buf = buf.slice(i + 2);
      if (/^event: (.*)$/m.exec(chunk)?.[1] !== "status") continue;
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)[1]);
      seen[data.status] ??= performance.now() - t0;
      if (["completed", "failed", "cancelled"].includes(data.status)) {
        await reader.cancel().catch(() => undefined);
        return { seen, last: data };
      }
    }
  }
}

const dovecot = await startDovecot({
  users: [{ user: account, password: imapPassword }],
  prefix: "bench-reset-",
  port: Number(values["imap-port"]),
});
const site = await startResetSite({
  mailboxFor: (email) => (email === account ? dovecot.maildirOf(email) : null),
  port: Number(values["site-port"]),
});
let worker;
try {
  worker = await startWorker({
    port: Number(values.port),
    name: "reset",
    vars: {
      OUTBOUND_ALLOW_PRIVATE: "true",
      IMAP_ALLOWED_PORTS: `143,993,${dovecot.port}`,
      RESET_EMAIL_WAIT_SECONDS: "60",
    },
  });
  const token = await signDevToken({
    sub: `bench-reset-${randomUUID().slice(0, 8)}`,
    email: "owner@example.test",
  });
  // DECISIONS D17: resets come from a registered device, signed in within 300 s.
  const auth = {
    Authorization: `Bearer ${token}`,
    "x-device-fingerprint": randomBytes(32).toString("hex"),
  };
  const { csrfToken } = await (
    await fetch(`${worker.base}/api/auth/csrf-token`, { headers: auth })
  ).json();
  const post = (path, body) =>
    fetch(`${worker.base}${path}`, {
      method: "POST",
      headers: { ...auth, "x-csrf-token": csrfToken, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const connected = await post("/api/integrations/imap/connect", {
    host: "127.0.0.1",
    port: dovecot.port,
    username: account,
    password: imapPassword,
    tls: false,
  });
  if (connected.status !== 200)
    throw new Error(`imap connect: ${connected.status} ${await connected.text()}`);
  const device = await post("/api/devices", {
    fingerprint: auth["x-device-fingerprint"],
    deviceName: "reset bench",
    deviceType: "desktop",
    os: "Linux",
    browser: "Chrome",
  });
  if (device.status !== 201)
    throw new Error(`device register: ${device.status} ${await device.text()}`);

  console.log(
    `reset bench: flow ${values.flow} (${site.origin}${startPath}), ${values.runs} runs under wrangler dev`,
  );
  const rows = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const oldPassword = `Old-${randomUUID()}`;
    await fetch(`${site.origin}/__test/users`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: account, password: oldPassword }),
    });
    const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", {
      crv: "P-256",
      extractable: true,
    });
    const t0 = performance.now();
    const created = await post("/api/tasks/reset", {
      serviceUrl: `${site.origin}${startPath}`,
      email: account,
      clientPublicKey: await exportJWK(publicKey),
    });
    if (created.status !== 201)
      throw new Error(`create: ${created.status} ${await created.text()}`);
    const { taskId } = await created.json();
    const { seen, last } = await follow(
      await fetch(`${worker.base}/api/tasks/${taskId}/stream`, { headers: auth }),
      t0,
    );
    const total = performance.now() - t0;
    if (last?.status !== "completed") throw new Error(`run ${i + 1} ended ${JSON.stringify(last)}`);
    const newPassword = new TextDecoder().decode(
      (await compactDecrypt(last.newPassword, privateKey)).plaintext,
    );
    const login = await fetch(`${site.origin}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: account, password: newPassword }),
    });
    if (login.status !== 200) throw new Error("the new password does not log in");
    const task = await (await fetch(`${worker.base}/api/jobs/${taskId}`, { headers: auth })).json();
    const step = Object.fromEntries(task.steps.map((s) => [s.name, s.duration]));
    const launch = task.steps.find((s) => s.name === "navigate").launchMs;
    const row = { total, firstRunning: seen.running, launch, ...step };
    rows.push(row);
    console.log(
      `run ${i + 1}: created→completed ${fmt(total, 0)} ms | created→first step ${fmt(seen.running, 0)} ms (browser launch ${launch} ms, queue+claim ${fmt(seen.running - launch, 0)} ms) | ` +
        `navigate ${step.navigate}, enter_email ${step.enter_email}, wait_for_email ${step.wait_for_email}, follow_link ${step.follow_link}, set_password ${step.set_password} ms`,
    );
  }
  const mean = (k) => rows.reduce((a, r) => a + r[k], 0) / rows.length;
  console.log(
    `mean: created→completed ${fmt(mean("total"), 0)} ms, browser launch ${fmt(mean("launch"), 0)} ms (${fmt((100 * mean("launch")) / mean("total"), 1)}% of the total), mailbox wait ${fmt(mean("wait_for_email"), 0)} ms`,
  );
} finally {
  worker?.stop();
  await site.stop();
  await dovecot.stop();
}
