#!/usr/bin/env node
// Applies migrations/ to every D1 database of wrangler.toml (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): each shard DB_i, the
// DIRECTORY and D12's DB, once per database (bindings sharing a database_id are one database).
//
//   npm run db:migrate                              local (wrangler dev's state), top-level bindings
//   npm run db:migrate -- --remote --env production the deployed databases of [env.production]
//   ... --config <path>                            another wrangler.toml (scripts/deploy-setup.mjs's tests)
//
// Every database gets every migration: one schema everywhere, so a shard can be added, or a user
// moved, without knowing which tables a database happens to use.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { wranglerEnv } from "./lib/wrangler-env.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const remote = args.includes("--remote");
const envAt = args.indexOf("--env");
const envName = envAt >= 0 ? args[envAt + 1] : undefined;
if (envAt >= 0 && !envName) throw new Error("--env needs a name");
const configAt = args.indexOf("--config");
const configPath = configAt >= 0 ? args[configAt + 1] : `${root}/wrangler.toml`;

/** The `[[d1_databases]]` tables of one environment (the top level when `env` is undefined). */
export function d1Databases(toml, env) {
  const header = env ? `[[env.${env}.d1_databases]]` : "[[d1_databases]]";
  const out = [];
  let current = null;
  for (const raw of toml.split("\n")) {
    const line = raw.replace(/\s+#.*$/, "").trim();
    if (line.startsWith("[")) {
      current = line === header ? {} : null;
      if (current) out.push(current);
      continue;
    }
    const m = current && /^(\w+)\s*=\s*"([^"]*)"$/.exec(line);
    if (m) current[m[1]] = m[2];
  }
  return out;
}

const databases = d1Databases(readFileSync(configPath, "utf8"), envName);
if (databases.length === 0)
  throw new Error(`wrangler.toml declares no D1 database${envName ? ` for env ${envName}` : ""}`);
const seen = new Set();
for (const db of databases) {
  // One database is one name and one id (a deployment not yet set up has placeholder ids for all).
  const key = `${db.database_name}/${db.database_id}`;
  if (seen.has(key)) {
    console.log(`${db.binding}: same database as an earlier binding, already migrated`);
    continue;
  }
  seen.add(key);
  const cmd = [
    "d1",
    "migrations",
    "apply",
    db.binding,
    remote ? "--remote" : "--local",
    ...(envName ? ["--env", envName] : []),
    ...(configAt >= 0 ? ["--config", configPath] : []),
  ];
  console.log(`${db.binding}: wrangler ${cmd.join(" ")}`);
  const r = spawnSync("wrangler", cmd, { cwd: root, stdio: "inherit", env: wranglerEnv() });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
