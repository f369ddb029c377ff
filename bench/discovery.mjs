// Discovery bench (docs/decisions/automation.md, "Automation: mailbox integrations and discovery"): a fresh scan (POST /api/accounts) of an IMAP mailbox in a real Dovecot,
// through `wrangler dev`, for mailboxes of growing size that each hold 1,000 matching messages.
//   node bench/discovery.mjs [--port 9510] [--sizes 2000,10000,20000] [--matching 1000] [--repeat 3] [--domains 250]
//
// Prints wall time per scan (cold: Dovecot builds its index on first access; then --repeat warm scans) and
// the resident memory of the workerd runtime (VmRSS from /proc, sampled every 5 ms) before, at its
// peak during, and after the scan. Target: 10,000 messages under 10 s, memory flat as the mailbox grows.
import { parseArgs } from "node:util";
import { fmt, rssKiB, signDevToken, startWorker, workerdPids } from "./lib/harness.mjs";
import { rfc822, startDovecot } from "../test/support/dovecot-lib.mjs";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "9510" },
    sizes: { type: "string", default: "2000,10000,20000" },
    matching: { type: "string", default: "1000" },
    repeat: { type: "string", default: "3" },
    domains: { type: "string", default: "250" },
  },
});
const port = Number(values.port);
const sizes = values.sizes.split(",").map(Number);
const matching = Number(values.matching);

const PHRASES = [
  "Welcome to",
  "Please verify your email",
  "Your account is ready",
  "Get started with",
  "Password reset for",
  "Security alert for",
  "Your order from",
];
const DOMAINS = Array.from({ length: Number(values.domains) }, (_, i) => `service${i}.example`);
const FILLER = [
  "Weekly digest",
  "Meeting notes",
  "Lunch on Friday?",
  "Re: the proposal",
  "Photos from the trip",
  "Invoice attached",
  "Team offsite agenda",
];
const BODY = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(40);

/** `total` messages, `hits` of them (spread evenly) with a discovery subject from one of --domains services. */
function mailbox(total, hits) {
  const every = Math.floor(total / hits);
  const start = Date.UTC(2024, 0, 1);
  return Array.from({ length: total }, (_, i) => {
    const date = new Date(start + i * 3_600_000);
    if (i % every === 0 && i / every < hits) {
      const n = i / every;
      const domain = DOMAINS[n % DOMAINS.length];
      return rfc822({
        from: `Service <no-reply@mail.${domain}>`,
        subject: `${PHRASES[n % PHRASES.length]} ${domain}`,
        date,
        body: BODY,
      });
    }
    return rfc822({
      from: `Person ${i % 97} <p${i % 97}@people.example>`,
      subject: `${FILLER[i % FILLER.length]} #${i}`,
      date,
      body: BODY,
    });
  });
}

const rssMiB = (pid) => rssKiB(pid) / 1024;

const users = [];
let t0 = performance.now();
for (const size of sizes)
  users.push({
    size,
    user: `bench-${size}@example.test`,
    password: `pw-${size}-${Date.now()}`,
    messages: mailbox(size, Math.min(matching, size)),
  });
const dovecot = await startDovecot({ users, prefix: "bench-discovery-" });
console.log(
  `Dovecot on ${dovecot.port}; ${sizes.join(", ")} messages written as Maildir in ${fmt(performance.now() - t0, 0)} ms`,
);

const worker = await startWorker({
  port,
  name: "discovery",
  vars: { OUTBOUND_ALLOW_PRIVATE: "true", IMAP_ALLOWED_PORTS: `143,993,${dovecot.port}` },
});
try {
  const pid = workerdPids(port).runtime;
  console.log(`workerd runtime pid ${pid}, idle RSS ${fmt(rssMiB(pid), 1)} MiB`);
  for (const box of users) {
    const token = await signDevToken({
      sub: `bench-${box.size}-${Date.now()}`,
      email: `owner-${box.size}@example.test`,
    });
    const auth = { authorization: `Bearer ${token}` };
    const { csrfToken } = await (
      await fetch(`${worker.base}/api/auth/csrf-token`, { headers: auth })
    ).json();
    const headers = { ...auth, "x-csrf-token": csrfToken, "content-type": "application/json" };
    const connect = await fetch(`${worker.base}/api/integrations/imap/connect`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        host: "127.0.0.1",
        port: dovecot.port,
        username: box.user,
        password: box.password,
        tls: false,
      }),
    });
    if (connect.status !== 200)
      throw new Error(`connect ${connect.status} ${await connect.text()}`);
    for (const phase of [
      "cold",
      ...Array.from({ length: Number(values.repeat) }, (_, i) => `warm ${i + 1}`),
    ]) {
      const before = rssMiB(pid);
      let peak = before;
      const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 5);
      t0 = performance.now();
      const res = await fetch(`${worker.base}/api/accounts`, {
        method: "POST",
        headers,
        body: "{}",
      });
      const ms = performance.now() - t0;
      clearInterval(timer);
      if (res.status !== 200) throw new Error(`scan ${res.status} ${await res.text()}`);
      const body = await res.json();
      const counted = body.accounts.reduce((n, a) => n + a.emailCount, 0);
      const after = rssMiB(pid);
      console.log(
        `${String(box.size).padStart(6)} messages, ${phase}: ${fmt(ms, 0)} ms; ${body.stats.total} accounts from ${counted} matching messages; ` +
          `runtime RSS before ${fmt(before, 1)} MiB, peak ${fmt(peak, 1)} (+${fmt(peak - before, 1)}), after ${fmt(after, 1)} MiB`,
      );
    }
  }
} finally {
  worker.stop();
  await dovecot.stop();
}
