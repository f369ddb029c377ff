// Command line bench (docs/cli.md, "Speed"): against its own wrangler dev and local OpenID provider
// (free ports), with a 10,000-entry vault sealed with the client's own crypto (bench/lib/vault-seed.mjs),
// the command line signed in as its tests sign it in (the provider's login page filled by plain
// HTTP, test/cli/support.ts), then:
//   - `vault unlock`: the agent's first sync (every entry pulled into its memory) and the key
//     derivation, with the agent's resident memory after; beside it, the two parts taken apart (the
//     pull alone over HTTP, the key derivation alone in this process);
//   - `vault get <entry> -f password`, 30 calls (p50, p95, max), beside `node -e 0` timed the same
//     way (Node's own start) and the bundle run without its launcher (cli/bin/vault.mjs);
//   - `vault run -- true` with 0 and 5 references, 20 calls each, beside a plain `true`;
//   - a pass with `--cpu-prof` (unlock, the agent, one get) that prints what took the time.
// Every call is timed from spawn to exit, wrapped in /usr/bin/time for its processor time (user +
// system, to 10 ms; the table gives its mean). The machine is shared: the load average is printed
// at the start and the end, and the processor time is the figure that does not wait for a core.
//   npm run bench:cli [-- --entries 10000 --gets 30 --runs 20]
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fmt, memKiB, startWorker } from "./lib/harness.mjs";
import { seedVault } from "./lib/vault-seed.mjs";
import { DEV_CLIENT_ID, DEV_PASSWORD, startDevOidc } from "../scripts/lib/dev-oidc.mjs";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { freePort } from "../test/support/dovecot-lib.mjs";
import { signInAtProvider, VAULT_BIN, vault, waitFor } from "../test/cli/support.ts";

const { values: opt } = parseArgs({
  options: {
    entries: { type: "string", default: "10000" },
    gets: { type: "string", default: "30" },
    runs: { type: "string", default: "20" },
  },
});
const ENTRIES = Number(opt.entries);
const PASSPHRASE = "correct horse battery staple";
const BUNDLE = join(ROOT, "node_modules", ".cache", "vault-cli", "vault.mjs");
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

console.log(
  `cli bench: ${ENTRIES} entries; ${cpus().length} cores, shared with other work (figures vary with it)`,
);
console.log(`load average at start (1, 5, 15 min): ${load()}`);

const stamp = Date.now();
const user = { sub: `cli-bench-${stamp}`, email: `cli-bench-${stamp}@example.test` };
const home = mkdtempSync(join(tmpdir(), "vault-cli-bench-home-"));
const agentDir = mkdtempSync(join(tmpdir(), "vcb-"));
const profDir = join(ROOT, "bench", "out", "cli-profiles");
const env = { VAULT_CLI_HOME: home, VAULT_AGENT_DIR: agentDir, VAULT_NO_BROWSER: "1" };
const childEnv = (extra = {}) => ({ PATH: process.env.PATH ?? "", HOME: home, ...env, ...extra });
let idp;
let worker;
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => void cleanup().finally(() => process.exit(130)));

/** The agent serving this bench's folder (its title is vault-agent; its environment names the folder). */
function agentPid() {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (environ.includes(`VAULT_AGENT_DIR=${agentDir}`) && /vault-agent|__agent/.test(cmd))
        return Number(pid);
    } catch {}
  }
  return null;
}

/** One call, spawn to exit, with its processor time (user + system) and peak memory from time(1). */
function timed(cmd, args, extraEnv = {}) {
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%U %S %M", cmd, ...args], {
    env: childEnv(extraEnv),
    encoding: "utf8",
  });
  const ms = performance.now() - t0;
  const last = r.stderr.trim().split("\n").at(-1) ?? "";
  const [u, s, kib] = last.split(" ").map(Number);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return { ms, cpuMs: (u + s) * 1000, kib, stdout: r.stdout };
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const rows = [];
function series(label, n, f) {
  const calls = Array.from({ length: n }, f);
  const ms = calls.map((c) => c.ms);
  const cpu = calls.map((c) => c.cpuMs);
  const row = {
    label,
    n,
    p50: pct(ms, 50),
    p95: pct(ms, 95),
    max: Math.max(...ms),
    cpu: cpu.reduce((a, b) => a + b, 0) / n,
    kib: pct(
      calls.map((c) => c.kib),
      50,
    ),
  };
  rows.push(row);
  return row;
}

/** Self time by function over a Node .cpuprofile, the engine's own nodes ((program), GC) included. */
function topOf(file, top = 8) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++)
    dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const self = new Map();
  let total = 0;
  for (const n of profile.nodes) {
    const us = dt.get(n.id) ?? 0;
    const f = n.callFrame;
    if (f.functionName === "(idle)" || f.functionName === "(root)") continue;
    total += us;
    const where = f.url ? ` ${f.url.replace(/^.*\//, "")}:${f.lineNumber + 1}` : "";
    const key = `${f.functionName || "(anonymous)"}${where}`;
    self.set(key, (self.get(key) ?? 0) + us);
  }
  const span = (profile.endTime - profile.startTime) / 1000;
  const lines = [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, us]) => `    ${(us / 1000).toFixed(1).padStart(7)} ms  ${k}`);
  return `  ${file.replace(/^.*\//, "")}: ${span.toFixed(0)} ms profiled, ${(total / 1000).toFixed(0)} ms on the thread (not idle); by self time:\n${lines.join("\n")}`;
}

async function unlock(extraEnv = {}) {
  const t0 = performance.now();
  const r = await vault(env, ["unlock", "--passphrase-fd", "3"], {
    fd3: `${PASSPHRASE}\n`,
    extraEnv,
  });
  const ms = performance.now() - t0;
  if (r.code !== 0) throw new Error(`unlock: ${r.code} ${r.stderr}`);
  return { ms, out: r.stdout.trim() };
}

try {
  const port = await freePort();
  idp = await startDevOidc({
    port: await freePort(),
    redirectUris: [`http://127.0.0.1:${port}/api/auth/callback`],
    allowRegistration: true,
    quiet: true,
  });
  worker = await startWorker({
    port,
    name: "cli-bench",
    vars: {
      IDP_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: DEV_CLIENT_ID,
      OIDC_SCOPES: "openid email vault",
    },
  });
  await fetch(`${idp.issuer}/dev/users`, { method: "POST", body: new URLSearchParams(user) });

  // Sign-in as test/cli/cli.test.ts does it: the loopback flow, the provider's page filled by HTTP.
  let stderr = "";
  const login = vault(env, ["login", "--server", worker.base, "--issuer", idp.issuer], {
    onStderr: (t) => (stderr = t),
  });
  const [authUrl] = await waitFor(() => stderr, /http:\/\/localhost:\d+\/auth\?\S+/);
  await signInAtProvider(authUrl, user.email, DEV_PASSWORD);
  const signedIn = await login;
  if (signedIn.code !== 0) throw new Error(`login: ${signedIn.stderr}`);
  const token = JSON.parse(readFileSync(join(home, "session.json"), "utf8")).tokens.access;

  let t0 = performance.now();
  await seedVault({
    base: worker.base,
    token,
    sub: user.sub,
    passphrase: PASSPHRASE,
    count: ENTRIES,
    website: (n) => `site${n % 2000}.example.com`,
  });
  console.log(
    `seeded ${ENTRIES} sealed entries through sync in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  // The first sync: the agent starts, pulls every entry and derives the key.
  const first = await unlock();
  const pid = agentPid();
  const mem = pid ? memKiB(pid) : null;
  console.log(`unlock (${first.out}): ${fmt(first.ms, 0)} ms`);
  console.log(
    mem
      ? `agent (pid ${pid}) resident memory after: ${(mem.rss / 1024).toFixed(1)} MiB (anonymous ${(mem.anon / 1024).toFixed(1)} MiB)`
      : "agent not found in /proc",
  );

  // Its two parts taken apart: the pull alone (the agent's pages of 2,000, cli/vault-view.ts) and
  // the key derivation alone (600,000 PBKDF2 rounds, the client's crypto).
  t0 = performance.now();
  let pulled = 0;
  let bytes = 0;
  for (let page = 1; ; page++) {
    const res = await fetch(`${worker.base}/api/passwords?page=${page}&limit=2000`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    bytes += text.length;
    const body = JSON.parse(text);
    pulled += body.data.length;
    if (body.data.length < 2000) break;
  }
  const pullMs = performance.now() - t0;
  const { build } = await import("esbuild");
  const cryptoOut = join(ROOT, "bench", "out", "cli-bench-crypto.mjs");
  await build({
    stdin: {
      contents: `export { deriveVaultKeys } from "./core/crypto/crypto.ts";`,
      resolveDir: ROOT,
      loader: "ts",
    },
    outfile: cryptoOut,
    bundle: true,
    format: "esm",
    platform: "node",
    logLevel: "warning",
  });
  const { deriveVaultKeys } = await import(cryptoOut);
  t0 = performance.now();
  await deriveVaultKeys(PASSPHRASE, user.sub);
  const kdfMs = performance.now() - t0;
  console.log(
    `  the pull alone: ${pulled} entries, ${(bytes / 1048576).toFixed(1)} MiB in ${fmt(pullMs, 0)} ms; the key derivation alone: ${fmt(kdfMs, 0)} ms`,
  );

  const node = process.execPath;
  const GETS = Number(opt.gets);
  const RUNS = Number(opt.runs);
  const target = `Entry ${Math.floor(ENTRIES / 2)}`;
  const check = timed(node, [VAULT_BIN, "get", target, "-f", "password"]);
  if (!check.stdout.startsWith(`pw-${Math.floor(ENTRIES / 2)}-`))
    throw new Error(`get answered ${check.stdout.length} characters, not the entry's password`);
  series("node -e 0", GETS, () => timed(node, ["-e", "0"]));
  series(`vault get "${target}" -f password`, GETS, () =>
    timed(node, [VAULT_BIN, "get", target, "-f", "password"]),
  );
  series("  the bundle alone (no launcher)", GETS, () =>
    timed(node, [BUNDLE, "get", target, "-f", "password"]),
  );
  series("true", RUNS, () => timed("true", []));
  series("vault run -- true, 0 references", RUNS, () =>
    timed(node, [VAULT_BIN, "run", "--", "true"]),
  );
  const refs = Object.fromEntries(
    Array.from({ length: 5 }, (_, i) => [
      `SECRET_${i}`,
      `vault://personal/Entry%20${i * 7}/password`,
    ]),
  );
  series("vault run -- true, 5 references", RUNS, () =>
    timed(node, [VAULT_BIN, "run", "--", "true"], refs),
  );

  console.log(`\n| call | n | p50 ms | p95 ms | max ms | cpu mean ms | peak RSS MiB |`);
  console.log(`|---|---|---|---|---|---|---|`);
  for (const r of rows)
    console.log(
      `| ${r.label} | ${r.n} | ${fmt(r.p50, 0)} | ${fmt(r.p95, 0)} | ${fmt(r.max, 0)} | ${fmt(r.cpu, 0)} | ${fmt(r.kib / 1024, 1)} |`,
    );

  // Where the time goes: the same steps under Node's CPU profiler (slower than the runs above).
  rmSync(profDir, { recursive: true, force: true });
  mkdirSync(profDir, { recursive: true });
  await vault(env, ["lock"]);
  const profiled = (name) => ({
    NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${join(profDir, name)} --cpu-prof-interval=200`,
  });
  const again = await unlock(profiled("unlock"));
  timed(node, [VAULT_BIN, "get", target, "-f", "password"], profiled("get"));
  timed(node, [VAULT_BIN, "run", "--", "true"], { ...refs, ...profiled("run") });
  // The agent writes its profile as it exits, on lock.
  await vault(env, ["lock"]);
  for (let i = 0; i < 50 && agentPid(); i++) await new Promise((r) => setTimeout(r, 100));
  console.log(
    `\nprofiled (--cpu-prof, kept in bench/out/cli-profiles/): unlock ${fmt(again.ms, 0)} ms`,
  );
  for (const name of ["unlock", "get", "run"])
    for (const f of readdirSync(join(profDir, name)).sort())
      console.log(`${name}: ${topOf(join(profDir, name, f))}`);
} finally {
  await cleanup();
}

/** Everything this bench started goes, whether it finished or not (also on Ctrl-C). */
async function cleanup() {
  if (cleanup.done) return;
  cleanup.done = true;
  try {
    await vault(env, ["lock"]);
  } catch {}
  const pid = agentPid();
  if (pid) process.kill(pid, "SIGTERM");
  worker?.stop();
  await idp?.stop();
  rmSync(home, { recursive: true, force: true });
  rmSync(agentDir, { recursive: true, force: true });
  console.log(`\nload average at end (1, 5, 15 min): ${load()}`);
}
