#!/usr/bin/env node
// A first deploy from nothing, and every deploy after it (`npm run deploy:setup`):
//
//   npm run deploy:setup -- [--settings prod.env] [--update-settings] [--config wrangler.toml] [--skip-deploy]
//
// Each step lists what exists first and creates only what is missing, so a second run changes
// nothing but the deployed code:
//   1. the secrets already stored are listed; the operator's settings (scripts/lib/production.mjs,
//      from --settings KEY=VALUE lines or the environment) that are neither stored nor given stop
//      the run here, before anything is created;
//   2. the D1 databases of [env.production] (shards and directory), created when missing, their
//      ids written into wrangler.toml's [env.production] (commit that change);
//   3. the R2 bucket(s) and the queues;
//   4. the secrets: CSRF, data key and VAPID keys generated once, the operator's settings stored;
//      every value goes to `wrangler secret put` on its standard input and is never printed;
//   5. the migrations, applied to every production database (scripts/db-migrate.mjs --remote);
//   6. `wrangler deploy --env production`.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  ENV,
  generateSecrets,
  OPERATOR_OPTIONAL,
  OPERATOR_REQUIRED,
  readWranglerConfig,
  resourcesOf,
  root,
  vapidSubjectFrom,
} from "./lib/production.mjs";
import { wranglerEnv } from "./lib/wrangler-env.mjs";

const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const configPath = resolve(flag("--config") ?? join(root, "wrangler.toml"));
const configArgs = flag("--config") ? ["--config", configPath] : [];

const step = (what) => console.log(`\n== ${what}`);
const say = (line) => console.log(`   ${line}`);

/** Runs wrangler; its output is returned, not shown, unless `show`. A failure stops the setup. */
function wrangler(cmd, { input, show = false, allowFail = false } = {}) {
  const r = spawnSync("wrangler", [...cmd, ...configArgs], {
    cwd: root,
    input,
    encoding: "utf8",
    env: wranglerEnv(),
    stdio: [
      input === undefined ? "ignore" : "pipe",
      show ? "inherit" : "pipe",
      show ? "inherit" : "pipe",
    ],
  });
  if (r.error) throw r.error;
  if (r.status !== 0 && !allowFail) {
    console.error(
      `wrangler ${cmd[0]} ${cmd[1] ?? ""} failed (exit ${r.status})${show ? "" : `:\n${r.stderr || r.stdout}`}`,
    );
    process.exit(r.status ?? 1);
  }
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** KEY=VALUE lines (# comments, optional quotes), the format of .dev.vars and node's --env-file. */
function readSettings(file) {
  if (!file) return {};
  const out = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^\s*([A-Z][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) out[m[1]] = m[2].replace(/^(["'])(.*)\1$/, "$2");
  }
  return out;
}

const given = {
  ...Object.fromEntries(Object.entries(process.env).filter(([, v]) => v)),
  ...readSettings(flag("--settings")),
};
const { config } = await readWranglerConfig(configPath, ENV);
const want = resourcesOf(config);

step("Secrets stored on the worker");
// A worker never deployed has none, and wrangler says it does not exist. Any other failure stops
// the run: taking "could not list" for "none" would generate a new data key over the one in use.
const listed = wrangler(["secret", "list", "--env", ENV, "--format", "json"], { allowFail: true });
if (!listed.ok && !/does not exist|not found|10007/i.test(listed.out)) {
  console.error(`wrangler secret list failed:\n${listed.out}`);
  process.exit(1);
}
const stored = listed.ok
  ? JSON.parse(listed.out.slice(listed.out.indexOf("["))).map((s) => s.name)
  : [];
say(stored.length ? stored.join(", ") : "none yet");
const missing = OPERATOR_REQUIRED.filter(
  (s) => !s.names.some((n) => stored.includes(n) || given[n]),
);
if (missing.length) {
  console.error(
    `\nMissing settings (give them in --settings <file> or the environment, then run again; nothing was created):`,
  );
  for (const s of missing)
    console.error(`   ${s.names.join(" or ")}: ${s.about} (for example ${s.example})`);
  process.exit(1);
}

step("D1 databases (shards and directory)");
const d1List = () => JSON.parse(wrangler(["d1", "list", "--json"]).out.replace(/^[^[]*/, ""));
let databases = d1List();
for (const name of want.databases) {
  if (databases.some((d) => d.name === name)) say(`${name}: exists`);
  else {
    wrangler(["d1", "create", name]);
    say(`${name}: created`);
  }
}
if (want.databases.some((n) => !databases.some((d) => d.name === n))) databases = d1List();
writeDatabaseIds(databases);

step("R2 buckets");
const buckets = [...wrangler(["r2", "bucket", "list"]).out.matchAll(/^name:\s+(\S+)\s*$/gm)].map(
  (m) => m[1],
);
for (const name of want.buckets) {
  if (buckets.includes(name)) say(`${name}: exists`);
  else {
    wrangler(["r2", "bucket", "create", name]);
    say(`${name}: created`);
  }
}

step("Queues");
// `queues list` prints a table; a queue is there when its name is one of the cells.
const cells = new Set(wrangler(["queues", "list"]).out.split(/[\s│|┌┐└┘├┤┬┴┼─]+/));
for (const name of want.queues) {
  if (cells.has(name)) say(`${name}: exists`);
  else {
    wrangler(["queues", "create", name]);
    say(`${name}: created`);
  }
}

step("Secrets");
const generated = generateSecrets();
const values = { ...generated };
for (const name of [...OPERATOR_REQUIRED.flatMap((s) => s.names), ...OPERATOR_OPTIONAL])
  if (given[name]) values[name] = given[name];
if (!values.VAPID_SUBJECT && !stored.includes("VAPID_SUBJECT")) {
  const from = given.MAIL_FROM;
  if (from) values.VAPID_SUBJECT = vapidSubjectFrom(from);
}
// The VAPID pair is one key: both are stored together or neither is replaced.
const vapidStored = stored.includes("VAPID_PUBLIC_KEY") || stored.includes("VAPID_PRIVATE_KEY");
for (const [name, value] of Object.entries(values)) {
  const isGenerated = name in generated;
  if (isGenerated && (stored.includes(name) || (name.startsWith("VAPID_") && vapidStored))) {
    say(`${name}: stored (generated once, never replaced)`);
    continue;
  }
  if (!isGenerated && stored.includes(name) && !args.includes("--update-settings")) {
    say(`${name}: stored (--update-settings replaces it with the value given)`);
    continue;
  }
  wrangler(["secret", "put", name, "--env", ENV], { input: value });
  say(`${name}: ${isGenerated ? "generated and stored" : "stored"}`);
}

step("Migrations (every production database)");
const migrate = spawnSync(
  process.execPath,
  [join(root, "scripts/db-migrate.mjs"), "--remote", "--env", ENV, ...configArgs],
  { cwd: root, stdio: "inherit", env: wranglerEnv() },
);
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

if (args.includes("--skip-deploy")) {
  step("Deploy skipped (--skip-deploy)");
} else {
  step(`Deploy: wrangler deploy --env ${ENV}`);
  wrangler(["deploy", "--env", ENV], { show: true });
}
console.log("\nDone. Check it: curl https://<your worker>/api/health");

/** Puts each database's id into [env.production]; a change to wrangler.toml is printed to commit. */
function writeDatabaseIds(list) {
  const text = readFileSync(configPath, "utf8");
  const section = text.indexOf(`[[env.${ENV}.d1_databases]]`);
  if (section < 0) return;
  let changed = false;
  const told = new Set();
  const tail = text
    .slice(section)
    .replace(
      new RegExp(
        `(\\[\\[env\\.${ENV}\\.d1_databases\\]\\][^[]*?database_name\\s*=\\s*"([^"]+)"\\s*\\n\\s*database_id\\s*=\\s*")([^"]*)(")`,
        "g",
      ),
      (all, head, name, id, end) => {
        const real = list.find((d) => d.name === name)?.uuid;
        if (!real || real === id) return all;
        changed = true;
        if (!told.has(name))
          say(`${name}: id ${real} written into ${configPath} ([env.${ENV}]; commit it)`);
        told.add(name);
        return `${head}${real}${end}`;
      },
    );
  if (changed) writeFileSync(configPath, text.slice(0, section) + tail);
  else say(`ids in ${configPath} up to date`);
}
