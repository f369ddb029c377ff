import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * `npm run deploy:setup` from nothing, twice, against a stub wrangler on PATH (test/deploy/stub):
 * the first run creates every resource and secret, the second finds them and creates nothing.
 */
type Call = { argv: string[]; stdin: boolean };
type State = {
  calls: Call[];
  d1: { uuid: string; name: string }[];
  r2: string[];
  queues: string[];
  secrets: Record<string, string>;
  migrated: string[];
  deployed: boolean;
};

const dir = mkdtempSync(join(tmpdir(), "deploy-setup-"));
const config = join(dir, "wrangler.toml");
const statePath = join(dir, "state.json");
const settings = {
  IDP_ISSUER: "https://idp.example.org",
  IDP_AUDIENCE: "credential-vault",
  IDP_JWKS_URL: "https://idp.example.org/jwks",
  APP_ORIGIN: "https://vault.example.org",
  MAIL_API_URL: "https://mail.example.org/send",
  MAIL_API_KEY: "mail-key-7f3a9c1e5b",
  MAIL_FROM: "Vault <vault@example.org>",
};
const state = (): State => JSON.parse(readFileSync(statePath, "utf8"));
const created = (s: State) =>
  s.calls
    .filter((c) => c.argv.includes("create") || (c.argv[0] === "secret" && c.argv[1] === "put"))
    .map((c) => c.argv.join(" "));

function setup(extra: string[] = [], env: Record<string, string> = {}) {
  // Only what the setup needs from this process: a developer's own IDP_* or MAIL_* stay out.
  const base = {
    PATH: [resolve("test/deploy/stub"), process.env.PATH].join(delimiter),
    HOME: process.env.HOME ?? dir,
    WRANGLER_STUB_STATE: statePath,
  };
  return spawnSync(process.execPath, ["scripts/deploy-setup.mjs", "--config", config, ...extra], {
    encoding: "utf8",
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe("npm run deploy:setup against a stub wrangler", () => {
  let first: ReturnType<typeof setup>;
  let afterFirst: State;

  beforeAll(() => {
    copyFileSync("wrangler.toml", config);
    writeFileSync(
      statePath,
      JSON.stringify({
        calls: [],
        d1: [{ uuid: "11111111-2222-3333-4444-555555555555", name: "someone-elses-db" }],
        r2: [],
        queues: [],
        secrets: {},
        migrated: [],
        deployed: false,
      }),
    );
    const settingsFile = join(dir, "production.env");
    writeFileSync(
      settingsFile,
      Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join("\n"),
    );
    first = setup(["--settings", settingsFile]);
    afterFirst = state();
  });

  it("without the operator's settings, names them and creates nothing", () => {
    const before = readFileSync(statePath, "utf8");
    const fresh = join(dir, "fresh.json");
    writeFileSync(
      fresh,
      JSON.stringify({
        calls: [],
        d1: [],
        r2: [],
        queues: [],
        secrets: {},
        migrated: [],
        deployed: false,
      }),
    );
    const r = setup([], { WRANGLER_STUB_STATE: fresh, MAIL_FROM: "vault@example.org" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("IDP_ISSUER");
    expect(r.stderr).toContain("MAIL_API_KEY");
    expect(r.stderr).not.toContain("MAIL_FROM:");
    const calls = JSON.parse(readFileSync(fresh, "utf8")).calls as Call[];
    expect(calls.map((c) => c.argv.slice(0, 2).join(" "))).toEqual(["secret list"]);
    expect(readFileSync(statePath, "utf8")).toBe(before);
  });

  it("creates every database, bucket and queue of [env.production] and writes the ids", () => {
    expect(first.status, first.stderr).toBe(0);
    expect(afterFirst.d1.map((d) => d.name).sort()).toEqual([
      "credential-vault-directory",
      "credential-vault-shard-0",
      "someone-elses-db",
    ]);
    expect(afterFirst.r2.sort()).toEqual([
      "credential-vault-attachments",
      "credential-vault-backups",
    ]);
    expect(afterFirst.queues.sort()).toEqual(["credential-vault-mail", "credential-vault-reset"]);
    const toml = readFileSync(config, "utf8");
    for (const d of afterFirst.d1.filter((d) => d.name.startsWith("credential-vault"))) {
      expect(toml).toMatch(new RegExp(`database_name = "${d.name}"\\ndatabase_id = "${d.uuid}"`));
    }
    expect(first.stdout).toContain("credential-vault-shard-0: created");
  });

  it("stores generated secrets in the formats the worker requires, each value on stdin and never printed", () => {
    const s = afterFirst.secrets;
    expect(Object.keys(s).sort()).toEqual(
      [
        ...Object.keys(settings),
        "CSRF_SECRET",
        "DATA_ENCRYPTION_KEY",
        "VAPID_PRIVATE_KEY",
        "VAPID_PUBLIC_KEY",
        "VAPID_SUBJECT",
      ].sort(),
    );
    expect(Buffer.from(s.DATA_ENCRYPTION_KEY!, "base64")).toHaveLength(32);
    expect(s.CSRF_SECRET!.length).toBeGreaterThanOrEqual(32);
    expect(Buffer.from(s.VAPID_PUBLIC_KEY!, "base64url")[0]).toBe(4);
    expect(Buffer.from(s.VAPID_PRIVATE_KEY!, "base64url")).toHaveLength(32);
    expect(s.VAPID_SUBJECT).toBe("mailto:vault@example.org");
    expect(s.MAIL_API_KEY).toBe(settings.MAIL_API_KEY);
    for (const put of afterFirst.calls.filter((c) => c.argv[1] === "put")) {
      expect(put.stdin).toBe(true);
      expect(put.argv).toEqual(["secret", "put", put.argv[2], "--env", "production"]);
    }
    for (const name of ["CSRF_SECRET", "DATA_ENCRYPTION_KEY", "VAPID_PRIVATE_KEY", "MAIL_API_KEY"])
      expect(first.stdout + first.stderr).not.toContain(s[name]);
  });

  it("migrates each production database once, then deploys production", () => {
    expect(afterFirst.migrated).toEqual(["DB", "DB_0"]);
    const order = afterFirst.calls.map((c) => c.argv.slice(0, 2).join(" "));
    expect(order.indexOf("deploy --env")).toBe(order.length - 1);
    expect(order.lastIndexOf("secret put")).toBeLessThan(order.indexOf("d1 migrations"));
    expect(afterFirst.deployed).toBe(true);
  });

  it("run again, creates nothing, replaces no secret, and deploys", () => {
    const toml = readFileSync(config, "utf8");
    const second = setup();
    expect(second.status, second.stderr).toBe(0);
    const after = state();
    expect(created(after)).toEqual(created(afterFirst));
    expect(after.secrets).toEqual(afterFirst.secrets);
    expect(readFileSync(config, "utf8")).toBe(toml);
    expect(second.stdout).toContain("DATA_ENCRYPTION_KEY: stored (generated once, never replaced)");
    expect(after.calls.at(-1)!.argv).toEqual(["deploy", "--env", "production"]);
  });

  it("stops, instead of generating a new data key, when the stored secrets cannot be listed", () => {
    const broken = join(dir, "broken");
    writeFileSync(broken, "#!/bin/sh\necho 'Authentication error [code: 10000]' >&2\nexit 1\n", {
      mode: 0o755,
    });
    const stubDir = mkdtempSync(join(tmpdir(), "broken-wrangler-"));
    copyFileSync(broken, join(stubDir, "wrangler"));
    const r = setup([], { PATH: [stubDir, process.env.PATH].join(delimiter), ...settings });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("wrangler secret list failed");
    expect(r.stdout).not.toContain("generated and stored");
  });
});
