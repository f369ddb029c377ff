#!/usr/bin/env node
// Production cannot drift from what the worker needs (run by `npm test`, scripts/test.sh):
//
//   node scripts/check-production.mjs [--config <wrangler.toml>] [--dry-run]
//
// It reads [env.production] as wrangler resolves it and fails, naming each gap, unless:
//  - every binding of the worker's Env (src/env.ts, Bindings) is bound, with the right kind;
//  - every binding, queue and var of the top level (what development and the suites run) is
//    there too: environments inherit none of them, so one added at the top alone is a drift;
//  - every queue the worker sends to has a consumer, the mail queue under the name its consumer
//    is told apart by, and the crons are the top level's;
//  - every Durable Object class is exported by the entry and has a migration;
//  - the vars, plus the secrets `deploy:setup` stores (scripts/lib/production.mjs), pass the
//    worker's own configuration schema in production (src/env.ts, bundled here);
//  - neither [env.production] nor the top level (what `wrangler deploy` without --env publishes)
//    would serve /dev/mail, every user's mail without a sign-in (src/env.ts, servesDevMail);
//  - with --dry-run, `wrangler deploy --dry-run --env production` succeeds without a warning.
// The same holds for [env.free] (the Workers Free plan's deploy, docs/cost.md) when there is one.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  ENV as PRODUCTION,
  generateSecrets,
  GENERATED,
  OPERATOR_REQUIRED,
  readWranglerConfig,
  root,
  vapidSubjectFrom,
} from "./lib/production.mjs";

const args = process.argv.slice(2);
const at = args.indexOf("--config");
const configPath = resolve(at >= 0 ? args[at + 1] : join(root, "wrangler.toml"));
const src = (p) => readFileSync(join(root, p), "utf8");

/** `NAME: Type` of the Bindings type in src/env.ts; the kind is what wrangler must bind it as. */
function envBindings() {
  const block = /export type Bindings = \{([\s\S]*?)\n\}/.exec(src("src/env.ts"))?.[1];
  if (!block) throw new Error("src/env.ts: no Bindings type found");
  const kinds = [
    [/^D1Database/, "d1"],
    [/^R2Bucket/, "r2"],
    [/^Queue</, "queue"],
    [/DurableObjectNamespace|Namespace$/, "durable object"],
    [/^Fetcher/, "fetcher"],
  ];
  return [...block.matchAll(/^\s+([A-Z][A-Z0-9_]*)\??:\s*([^;]+);/gm)].map(([, name, type]) => ({
    name,
    kind: kinds.find(([re]) => re.test(type.trim()))?.[1] ?? "other",
  }));
}

/** Every binding name of a resolved config, by kind. */
function bound(config) {
  return {
    d1: config.d1_databases.map((d) => d.binding),
    r2: config.r2_buckets.map((b) => b.binding),
    queue: (config.queues.producers ?? []).map((q) => q.binding),
    "durable object": config.durable_objects.bindings.map((d) => d.name),
    fetcher: [
      config.browser?.binding,
      config.assets?.binding,
      ...config.services.map((s) => s.binding),
    ].filter(Boolean),
  };
}

/** The worker's configuration module (src/env.ts), bundled so the check runs what the worker runs. */
let envModule;
const configModule = () => (envModule ??= bundleEnv());
async function bundleEnv() {
  const dir = mkdtempSync(join(tmpdir(), "env-schema-"));
  try {
    const out = join(dir, "env.mjs");
    await build({
      entryPoints: [join(root, "src/env.ts")],
      bundle: true,
      format: "esm",
      platform: "node",
      outfile: out,
      logLevel: "error",
    });
    return await import(pathToFileURL(out).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function checkProduction(path, ENV = PRODUCTION) {
  const problems = [];
  const { config: prod, warnings } = await readWranglerConfig(path, ENV);
  const { config: top } = await readWranglerConfig(path, undefined);
  for (const w of warnings)
    problems.push(
      `wrangler warns: ${w
        .replace(/\x1b\[[0-9;]*m/g, "")
        .replace(/\s+/g, " ")
        .trim()}`,
    );
  const have = bound(prod);

  for (const { name, kind } of envBindings()) {
    if (kind === "other") continue;
    if (!have[kind]?.includes(name))
      problems.push(`${name}: the worker's Env uses it (${kind}), [env.${ENV}] does not bind it`);
  }
  const shards = have.d1
    .filter((b) => /^DB_\d+$/.test(b))
    .map((b) => Number(b.slice(3)))
    .sort((a, b) => a - b);
  if (shards.length === 0 || shards.some((n, i) => n !== i))
    problems.push(
      `D1 shards must be DB_0 … DB_{n-1} without a gap; [env.${ENV}] has ${shards.map((n) => `DB_${n}`).join(", ") || "none"}`,
    );
  if (!have.d1.includes("DIRECTORY"))
    problems.push(`DIRECTORY: the directory database is not bound in [env.${ENV}]`);

  const topHave = bound(top);
  for (const [kind, names] of Object.entries(topHave)) {
    for (const name of names)
      if (!have[kind].includes(name))
        problems.push(`${name}: bound at the top level (${kind}) but not in [env.${ENV}]`);
  }
  for (const name of Object.keys(top.vars ?? {}))
    if (!(name in (prod.vars ?? {})))
      problems.push(`${name}: a top-level var missing from [env.${ENV}.vars]`);

  const consumed = new Set((prod.queues.consumers ?? []).map((q) => q.queue));
  for (const p of prod.queues.producers ?? [])
    if (!consumed.has(p.queue))
      problems.push(`${p.binding}: queue ${p.queue} has no consumer in [env.${ENV}]`);
  const topConsumed = (top.queues.consumers ?? []).map((q) => q.queue);
  for (const q of topConsumed)
    if (!consumed.has(q))
      problems.push(`queue ${q}: consumed at the top level, not in [env.${ENV}]`);
  const mailQueueName = /MAIL_QUEUE_NAME = "([^"]+)"/.exec(
    src("src/domains/notifications/mail-queue.ts"),
  )?.[1];
  const mail = (prod.queues.producers ?? []).find((q) => q.binding === "MAIL_QUEUE");
  if (mail && mail.queue !== mailQueueName)
    problems.push(
      `MAIL_QUEUE: sends to ${mail.queue}, but the consumer recognises ${mailQueueName}`,
    );

  const crons = (c) => JSON.stringify([...(c.triggers?.crons ?? [])].sort());
  if (crons(prod) !== crons(top))
    problems.push(
      `crons: [env.${ENV}] runs ${crons(prod)}, the worker's schedule is ${crons(top)}`,
    );

  const entry = src("src/index.ts");
  const migrated = new Set(
    prod.migrations.flatMap((m) => [...(m.new_sqlite_classes ?? []), ...(m.new_classes ?? [])]),
  );
  for (const { name, class_name } of prod.durable_objects.bindings) {
    const exported = new RegExp(
      `export (class ${class_name}\\b|\\{[^}]*\\b${class_name}\\b[^}]*\\})`,
    ).test(entry);
    if (!exported) problems.push(`${name}: class ${class_name} is not exported by src/index.ts`);
    if (!migrated.has(class_name))
      problems.push(`${name}: class ${class_name} has no Durable Object migration`);
  }

  // The vars and the secrets the setup stores must make a configuration the worker accepts.
  const { ConfigSchema, servesDevMail } = await configModule();
  const examples = Object.fromEntries(OPERATOR_REQUIRED.map((s) => [s.names[0], s.example]));
  // A var written in the file is what deploys; the examples stand in only for the stored secrets.
  if (servesDevMail({ ...examples, ...prod.vars }))
    problems.push(
      `/dev/mail: [env.${ENV}.vars] would serve every user's mail without a sign-in (development, the outbox and a loopback APP_ORIGIN)`,
    );
  if (servesDevMail({ ...top.vars }))
    problems.push(
      "/dev/mail: `wrangler deploy` without --env would serve every user's mail without a sign-in (the top level's [vars] name a loopback APP_ORIGIN; `npm start` passes it with --var)",
    );
  const parsed = ConfigSchema.safeParse({
    ...prod.vars,
    ...generateSecrets(),
    ...examples,
    VAPID_SUBJECT: vapidSubjectFrom(examples.MAIL_FROM),
  });
  if (!parsed.success) {
    const stored = [...GENERATED, ...OPERATOR_REQUIRED.flatMap((s) => s.names)];
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? "config");
      const where = stored.includes(name)
        ? "a stored secret"
        : `neither a var of [env.${ENV}.vars] nor a secret deploy:setup stores`;
      problems.push(`${name}: ${issue.message} in production (${where})`);
    }
  }
  return problems;
}

/** The dry run: wrangler bundles the worker against the production bindings; a warning fails. */
export function dryRun(path, ENV = PRODUCTION) {
  const dir = mkdtempSync(join(tmpdir(), "dry-run-"));
  try {
    const r = spawnSync(
      "npx",
      ["wrangler", "deploy", "--dry-run", "--env", ENV, "--config", path, "--outdir", dir],
      {
        cwd: root,
        encoding: "utf8",
        env: {
          ...process.env,
          CI: "true",
          WRANGLER_SEND_METRICS: "false",
          NO_COLOR: "1",
          FORCE_COLOR: "0",
        },
      },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    const problems = [];
    if (r.status !== 0)
      problems.push(
        `wrangler deploy --dry-run --env ${ENV} failed:\n${out.trim().split("\n").slice(-15).join("\n")}`,
      );
    else if (/\[WARNING\]/.test(out))
      problems.push(
        `wrangler deploy --dry-run --env ${ENV} warned:\n${out.slice(out.indexOf("[WARNING]")).split("\n").slice(0, 12).join("\n")}`,
      );
    return { problems, out };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The environments a deploy may name: production, and the free plan's (docs/cost.md, "The free
 * plan") when the config has one; each must bind everything and deploy without a warning.
 */
export const environments = (path) =>
  /^\[env\.free\]/m.test(readFileSync(path, "utf8")) ? [PRODUCTION, "free"] : [PRODUCTION];

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  let failed = false;
  for (const ENV of environments(configPath)) {
    const problems = await checkProduction(configPath, ENV);
    if (args.includes("--dry-run") && problems.length === 0)
      problems.push(...dryRun(configPath, ENV).problems);
    if (problems.length) {
      console.error(`[env.${ENV}] of ${configPath} is incomplete:`);
      for (const p of problems) console.error(`  - ${p}`);
      failed = true;
      continue;
    }
    console.log(
      `[env.${ENV}] binds everything the worker uses${args.includes("--dry-run") ? "; the dry run deploys without a warning" : ""}`,
    );
  }
  if (failed) process.exit(1);
}
