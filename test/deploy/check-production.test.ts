import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { checkProduction, environments } from "../../scripts/check-production.mjs";

const check = checkProduction as (path: string, env?: string) => Promise<string[]>;
const environmentsOf = environments as (path: string) => string[];
const current = readFileSync("wrangler.toml", "utf8");
const dir = mkdtempSync(join(tmpdir(), "check-production-"));

/** The current wrangler.toml with one edit, written beside the others of this run. */
function variant(name: string, edit: (toml: string) => string): string {
  const edited = edit(current);
  expect(edited, `${name}: the edit changed nothing`).not.toBe(current);
  const path = join(dir, `${name}.toml`);
  writeFileSync(path, edited);
  return path;
}

describe("the production check (scripts/check-production.mjs)", () => {
  it("passes on wrangler.toml as committed", async () => {
    expect(await check("wrangler.toml")).toEqual([]);
  });

  it("checks the free plan's environment too, and names what it leaves unbound", async () => {
    expect(environmentsOf("wrangler.toml")).toEqual(["production", "free"]);
    expect(await check("wrangler.toml", "free")).toEqual([]);
    const path = variant("free-without-browser", (t) =>
      t.replace('[env.free.browser]\nbinding = "BROWSER"\n', ""),
    );
    const problems = await check(path, "free");
    expect(problems.join("\n")).toContain("BROWSER");
    expect(problems.join("\n")).toContain("[env.free]");
    expect(await check(path)).toEqual([]);
  });

  it("fails on the production section that shipped without the mail queue and DB", async () => {
    const problems = await check("test/deploy/fixtures/wrangler.before-production-fix.toml");
    expect(problems).toEqual(
      expect.arrayContaining([
        "MAIL_QUEUE: the worker's Env uses it (queue), [env.production] does not bind it",
        "DB: the worker's Env uses it (d1), [env.production] does not bind it",
        "queue credential-vault-mail: consumed at the top level, not in [env.production]",
      ]),
    );
    expect(problems.some((p) => p.startsWith("wrangler warns:") && p.includes('"DB"'))).toBe(true);
  });

  it("fails, exit 1 and each gap named, when run as the command npm test runs", () => {
    const r = spawnSync(
      process.execPath,
      [
        "scripts/check-production.mjs",
        "--config",
        "test/deploy/fixtures/wrangler.before-production-fix.toml",
      ],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("MAIL_QUEUE: the worker's Env uses it (queue)");
  });

  it("names a queue producer without its consumer", async () => {
    const path = variant("no-mail-consumer", (t) =>
      t.replace(
        /\[\[env\.production\.queues\.consumers\]\]\nqueue = "credential-vault-mail"\nmax_batch_size = 10\nmax_retries = 8\n/,
        "",
      ),
    );
    expect(await check(path)).toContain(
      "MAIL_QUEUE: queue credential-vault-mail has no consumer in [env.production]",
    );
  });

  it("names a mail queue its consumer would not recognise", async () => {
    const path = variant("renamed-mail-queue", (t) =>
      t.replace(
        /(env\.production\.queues\.producers\]\]\nbinding = "MAIL_QUEUE"\nqueue = )"credential-vault-mail"/,
        '$1"vault-mail"',
      ),
    );
    const problems = await check(path);
    expect(problems).toContain(
      "MAIL_QUEUE: sends to vault-mail, but the consumer recognises credential-vault-mail",
    );
  });

  it("names a cron production would not run", async () => {
    const path = variant("own-crons", (t) =>
      t.replace("[env.production]\n", '[env.production]\ntriggers = { crons = ["0 0 * * *"] }\n'),
    );
    expect((await check(path)).some((p) => p.startsWith("crons: [env.production] runs"))).toBe(
      true,
    );
  });

  it("names a setting the worker requires in production that nothing provides", async () => {
    const path = variant("no-transport", (t) => t.replace('MAIL_TRANSPORT = "http"\n', ""));
    const problems = await check(path);
    expect(problems.some((p) => p.startsWith("MAIL_TRANSPORT: required in production"))).toBe(true);
  });

  it("names a production section that would serve /dev/mail (development, the outbox, a loopback APP_ORIGIN)", async () => {
    const path = variant("dev-mail-in-production", (t) =>
      t
        .replace(
          '[env.production.vars]\nENVIRONMENT = "production"\n',
          '[env.production.vars]\nENVIRONMENT = "development"\nAPP_ORIGIN = "http://127.0.0.1:8787"\n',
        )
        .replace(/(\[env\.production\.vars\][\s\S]*?)MAIL_TRANSPORT = "http"\n/, "$1"),
    );
    expect(
      (await check(path)).some((p) => p.startsWith("/dev/mail: [env.production.vars] would serve")),
    ).toBe(true);
    // A real origin keeps the page closed even with development's other settings.
    const real = variant("dev-settings-real-origin", (t) =>
      t
        .replace(
          '[env.production.vars]\nENVIRONMENT = "production"\n',
          '[env.production.vars]\nENVIRONMENT = "development"\nAPP_ORIGIN = "https://vault.example.org"\n',
        )
        .replace(/(\[env\.production\.vars\][\s\S]*?)MAIL_TRANSPORT = "http"\n/, "$1"),
    );
    expect((await check(real)).some((p) => p.startsWith("/dev/mail"))).toBe(false);
  });

  it("names a top level that a deploy without --env production would publish /dev/mail from", async () => {
    const path = variant("dev-mail-top-level", (t) =>
      t.replace(
        '[vars]\nENVIRONMENT = "development"\n',
        '[vars]\nENVIRONMENT = "development"\nAPP_ORIGIN = "http://localhost:8787"\n',
      ),
    );
    expect(
      (await check(path)).some((p) =>
        p.startsWith("/dev/mail: `wrangler deploy` without --env would serve"),
      ),
    ).toBe(true);
  });

  it("names a Durable Object binding and a shard gap", async () => {
    const path = variant("gaps", (t) =>
      t
        .replace(
          '[[env.production.durable_objects.bindings]]\nname = "TASK_PROGRESS"\nclass_name = "TaskProgress"\n',
          "",
        )
        .replace(/(\[\[env\.production\.d1_databases\]\]\nbinding = )"DB_0"/, '$1"DB_1"'),
    );
    const problems = await check(path);
    expect(problems).toContain(
      "TASK_PROGRESS: the worker's Env uses it (durable object), [env.production] does not bind it",
    );
    expect(problems).toContain(
      "D1 shards must be DB_0 … DB_{n-1} without a gap; [env.production] has DB_1",
    );
  });
});
