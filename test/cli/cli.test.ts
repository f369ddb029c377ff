/**
 * The command line end to end (docs/cli.md): the real `vault` against a real wrangler dev and the
 * local OpenID provider, one server set for the file. Sign-in through the provider's login page
 * (loopback redirect with PKCE), device registration with a possession key, unlock from a file
 * descriptor, list, search, get, run with masking, inject, and the refusals: a wrong passphrase,
 * a locked vault, a reference to nothing.
 */
import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_PASSWORD } from "../../scripts/lib/dev-oidc.mjs";
import { deriveVaultKeys, openEntry, PBKDF2_ITERATIONS, placeOf } from "../../core/crypto";
import { sealInput } from "../../core/vault";
import { codeOfField } from "../../src/kernel/totp";
import { apiAs, startServers, type Servers } from "./servers";
import { type Sshd, run, startSshd } from "./sshd";
import { signInAtProvider, VAULT_BIN, vault, waitFor, type CliEnv } from "./support";

const PASSPHRASE = "correct horse battery staple";
const TOTP_SECRET = "JBSWY3DPEHPK3PXP";
const DB_PASSWORD = "db-Pa55word-with-$pecial";

let servers: Servers | undefined;
/** The worker and the provider; CLI_SUITE_SERVER and CLI_SUITE_ISSUER name a pair already running, to iterate on the tests without starting wrangler each time. */
const at = { base: "", issuer: "" };
let env: CliEnv;
const user = { sub: `cli-${Date.now()}`, email: `cli-${Date.now()}@example.test` };
const dirs: string[] = [];
let sshd: Sshd | undefined;

const call = (method: string, path: string, body?: unknown) =>
  apiAs(at.base, env.VAULT_CLI_HOME!)(method, path, body);

/** Entries sealed as the web app seals them, pushed as another device of the person would. */
async function seed() {
  const keys = await deriveVaultKeys(PASSPHRASE, user.sub, PBKDF2_ITERATIONS, 1);
  const base = { notes: "", category: "", totp: "", tags: [], url: "" };
  const entries = [
    {
      name: "GitHub",
      website: "github.com",
      username: "octo",
      password: "gh-secret-123",
      totp: TOTP_SECRET,
    },
    {
      name: "Database",
      website: "db.example",
      username: "app",
      password: DB_PASSWORD,
      fields: [{ name: "host", value: "db.internal:5432", type: "text" as const }],
    },
    { name: "Mail", website: "mail.example", username: "me", password: "mail-pw-456" },
  ];
  const now = new Date().toISOString();
  const mutations = [];
  for (const e of entries) {
    const id = randomUUID();
    const { data } = await sealInput(keys, user.sub, id, { ...base, ...e });
    mutations.push({ action: "create", id, data, clientUpdatedAt: now });
  }
  const res = await call("POST", "/api/passwords/sync", { mutations });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  servers = await startServers("cli-suite");
  at.base = servers.base;
  at.issuer = servers.issuer;
  await fetch(`${at.issuer}/dev/users`, { method: "POST", body: new URLSearchParams(user) });
  const home = mkdtempSync(join(tmpdir(), "vault-cli-home-"));
  const agent = mkdtempSync(join(tmpdir(), "vca-"));
  dirs.push(home, agent);
  env = { VAULT_CLI_HOME: home, VAULT_AGENT_DIR: agent, VAULT_NO_BROWSER: "1" };
  // wrangler dev's first start (its migrations, its build) takes minutes on a machine shared by many.
}, 600_000);

afterAll(async () => {
  await sshd?.stop();
  if (env) await vault(env, ["lock"]);
  await servers?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("vault, the command line", () => {
  it("signs in through the provider's page as a native app and registers a key-bound device", async () => {
    let stderr = "";
    const login = vault(env, ["login", "--server", at.base, "--issuer", at.issuer], {
      onStderr: (t) => (stderr = t),
    });
    const [authUrl] = await waitFor(() => stderr, /http:\/\/localhost:\d+\/auth\?\S+/);
    const auth = new URL(authUrl);
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const back = await signInAtProvider(authUrl, user.email, DEV_PASSWORD);
    expect(back.status).toBe(200);
    const done = await login;
    expect(done.stderr + done.stdout).toMatch(/Signed in to .* as cli-.*@example\.test/);
    expect(done.code).toBe(0);
    const devices = await call("GET", "/api/devices");
    const mine = devices.body.devices.find((d: { browser: string }) => d.browser === "vault CLI");
    expect(mine).toMatchObject({ key_bound: true, trust_level: "trusted" });
    expect(statSync(join(env.VAULT_CLI_HOME!, "session.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.VAULT_CLI_HOME!, "device-key.json")).mode & 0o777).toBe(0o600);
    await seed();
  });

  it("is locked until unlocked: status and get say so with exit code 4", async () => {
    const status = await vault(env, ["status"]);
    expect([status.code, status.stdout]).toEqual([4, expect.stringContaining("Locked")]);
    const get = await vault(env, ["get", "GitHub"]);
    expect(get.code).toBe(4);
    expect(get.stderr).toMatch(/locked: run `vault unlock`/);
  });

  it("refuses a wrong passphrase with exit code 5 and leaves no agent behind", async () => {
    const wrong = await vault(env, ["unlock", "--passphrase-fd", "3"], {
      fd3: "not the passphrase\n",
    });
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toMatch(/does not open the vault/);
    expect((await vault(env, ["status"])).code).toBe(4);
  });

  it("refuses a passphrase given as an argument", async () => {
    const r = await vault(env, ["unlock", "--passphrase", PASSPHRASE]);
    expect(r.code).toBe(2);
    expect((await vault(env, ["status"])).code).toBe(4);
  });

  it("unlocks from a file descriptor; lists, searches and gets fields", async () => {
    const open = await vault(env, ["unlock", "--passphrase-fd", "3"], { fd3: `${PASSPHRASE}\n` });
    expect([open.code, open.stdout]).toEqual([0, "Unlocked: 3 entries\n"]);
    expect((await vault(env, ["status"])).code).toBe(0);

    const list = await vault(env, ["list", "--json"]);
    expect(JSON.parse(list.stdout).map((e: { name: string }) => e.name)).toEqual([
      "Database",
      "GitHub",
      "Mail",
    ]);
    const search = await vault(env, ["search", "octo", "--json"]);
    expect(JSON.parse(search.stdout).map((e: { name: string }) => e.name)).toEqual(["GitHub"]);
    expect((await vault(env, ["search", "nothing-like-it"])).code).toBe(6);

    expect(await vault(env, ["get", "GitHub"])).toMatchObject({ code: 0, stdout: "gh-secret-123" });
    expect((await vault(env, ["get", "github", "--field", "username"])).stdout).toBe("octo");
    expect((await vault(env, ["get", "vault://personal/Database/host"])).stdout).toBe(
      "db.internal:5432",
    );
    const before = await codeOfField(TOTP_SECRET);
    const totp = (await vault(env, ["get", "GitHub", "-f", "totp", "--json"])).stdout;
    const after = await codeOfField(TOTP_SECRET);
    expect([before, after]).toContain(JSON.parse(totp).value);

    const missing = await vault(env, ["get", "Nowhere"]);
    expect([missing.code, missing.stderr]).toEqual([
      6,
      expect.stringContaining('No entry named "Nowhere"'),
    ]);
    expect((await vault(env, ["get", "Mail", "--field", "notes"])).code).toBe(6);
  });

  it("answers get from the unlocked agent quickly", async () => {
    const median = async (f: () => Promise<unknown>) => {
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const t = performance.now();
        await f();
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b)[3]!;
    };
    const get = await median(async () =>
      expect((await vault(env, ["get", "Mail"])).stdout).toBe("mail-pw-456"),
    );
    // Beside a bare Node start measured now: on a shared machine a process start alone varies
    // tenfold, so the figure for docs/cli.md is the difference as much as the total. Not a gate.
    const bare = await median(
      () =>
        new Promise((resolve) =>
          spawn(process.execPath, ["-e", "0"], { stdio: "ignore" }).on("close", resolve),
        ),
    );
    // And the processor time it costs (bash's `times`: the command's and the agent's answer are
    // not waiting on the machine's other work there).
    const cpu = await new Promise<string>((resolve) => {
      let text = "";
      const child = spawn(
        "bash",
        ["-c", '"$@" >/dev/null; times', "_", process.execPath, VAULT_BIN, "get", "Mail"],
        { env: { ...process.env, ...env } },
      );
      child.stdout.on("data", (d) => (text += d));
      child.on("close", () => resolve(text.trim().split("\n").at(-1) ?? ""));
    });
    console.log(
      `vault get, agent unlocked: median ${get.toFixed(0)} ms; a bare node start ${bare.toFixed(0)} ms; processor time (user, system) ${cpu}`,
    );
  });

  it("runs a program with references resolved in its environment and the secrets masked", async () => {
    const script =
      "const v = process.env.DB_PASS; console.log('password is ' + v); console.error('host ' + process.env.DB_HOST);" +
      "console.log('digest ' + require('crypto').createHash('sha256').update(v).digest('hex')); process.exit(3)";
    const r = await vault(env, ["run", "--", process.execPath, "-e", script], {
      extraEnv: {
        DB_PASS: "vault://personal/Database/password",
        DB_HOST: "vault://personal/Database/host",
        PLAIN: "x",
      },
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toContain("password is <concealed by vault>");
    expect(r.stderr).toContain("host <concealed by vault>");
    expect(r.stdout + r.stderr).not.toContain(DB_PASSWORD);
    // The program itself had the real value.
    expect(r.stdout).toContain(`digest ${createHash("sha256").update(DB_PASSWORD).digest("hex")}`);
  });

  it("starts nothing when a reference does not resolve", async () => {
    const marker = join(env.VAULT_CLI_HOME!, "started");
    const r = await vault(
      env,
      [
        "run",
        "--",
        process.execPath,
        "-e",
        `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
      ],
      {
        extraEnv: {
          OK: "vault://personal/GitHub/password",
          BAD: "vault://personal/GitHub/nosuchfield",
        },
      },
    );
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("vault://personal/GitHub/nosuchfield");
    expect(existsSync(marker)).toBe(false);
  });

  it("fills a template into a 0600 file, or writes nothing when a reference names nothing", async () => {
    const dir = env.VAULT_CLI_HOME!;
    writeFileSync(
      join(dir, "app.tpl"),
      "user={{ vault://personal/Database/username }}\npass={{vault://personal/Database/password}}\n",
    );
    const ok = await vault(env, ["inject", "-i", join(dir, "app.tpl"), "-o", join(dir, "app.env")]);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(dir, "app.env"), "utf8")).toBe(`user=app\npass=${DB_PASSWORD}\n`);
    expect(statSync(join(dir, "app.env")).mode & 0o777).toBe(0o600);

    writeFileSync(
      join(dir, "bad.tpl"),
      "a={{ vault://personal/Database/password }}\nb={{ vault://work/Database/password }}\n",
    );
    const bad = await vault(env, [
      "inject",
      "-i",
      join(dir, "bad.tpl"),
      "-o",
      join(dir, "bad.env"),
    ]);
    expect(bad.code).toBe(6);
    expect(existsSync(join(dir, "bad.env"))).toBe(false);
  });

  it("creates, edits and deletes entries sealed as the web app seals them; a password is never an argument", async () => {
    const keys = await deriveVaultKeys(PASSPHRASE, user.sub, PBKDF2_ITERATIONS, 1);
    const held = async (id: string) => {
      const rows = (await call("GET", "/api/passwords?limit=100")).body.data as any[];
      const row = rows.find((r) => r.id === id);
      return row
        ? { row, secrets: (await openEntry(keys, placeOf(user.sub, row), row)).secrets }
        : null;
    };
    const STAGING = "st4ging-Secret-!x";
    const since = new Date(Date.now() - 60_000).toISOString();

    // A password as an argument is not an option; refused before anything is sent.
    const argued = await vault(env, ["create", "Leaky", "--password", STAGING]);
    expect([argued.code, argued.stderr]).toEqual([
      2,
      expect.stringContaining("Unknown option --password"),
    ]);

    const made = await vault(
      env,
      [
        "create",
        "Staging DB",
        "--url",
        "https://staging.example/login",
        "-u",
        "deploy",
        "--password-fd",
        "3",
        "--json",
      ],
      { fd3: `${STAGING}\n` },
    );
    expect(made.code, made.stderr).toBe(0);
    const { id } = JSON.parse(made.stdout) as { id: string };
    expect(await vault(env, ["get", id])).toMatchObject({ code: 0, stdout: STAGING });
    const created = await held(id);
    expect(created?.row).toMatchObject({
      name: "Staging DB",
      website: "staging.example",
      encryption_version: 3,
    });
    expect(JSON.stringify(created?.row)).not.toContain(STAGING);
    expect(created?.secrets).toMatchObject({ username: "deploy", password: STAGING });
    expect(created?.secrets.password_changed_at).toEqual(expect.any(String));

    // An edit changes what it names and carries the rest: the custom field stays, the old password goes to the history.
    const dbId = (
      JSON.parse((await vault(env, ["list", "--json"])).stdout) as { id: string; name: string }[]
    ).find((e) => e.name === "Database")!.id;
    const edited = await vault(env, [
      "edit",
      "Database",
      "--generate",
      "--length",
      "32",
      "-u",
      "admin",
    ]);
    expect([edited.code, edited.stdout]).toEqual([0, `Saved Database\t${dbId}\n`]);
    const fresh = (await vault(env, ["get", "Database"])).stdout;
    expect(fresh).toHaveLength(32);
    expect(fresh).not.toBe(DB_PASSWORD);
    const after = await held(dbId);
    expect(after?.secrets).toMatchObject({ username: "admin", password: fresh });
    expect(after?.secrets.fields).toEqual([
      { name: "host", value: "db.internal:5432", type: "text" },
    ]);
    expect(after?.secrets.password_history?.[0]?.password).toBe(DB_PASSWORD);

    // Nothing named, nothing found: refused, and the server holds what it held.
    expect((await vault(env, ["edit", "Database"])).code).toBe(2);
    expect((await vault(env, ["edit", "Nowhere", "--notes", "x"])).code).toBe(6);
    expect((await vault(env, ["delete", "Nowhere"])).code).toBe(6);
    expect((await held(dbId))?.row.updated_at).toBe(after?.row.updated_at);

    const gone = await vault(env, ["delete", "Staging DB"]);
    expect([gone.code, gone.stdout]).toEqual([0, `Deleted Staging DB\t${id}\n`]);
    expect(await held(id)).toBeNull();
    expect((await vault(env, ["get", id])).code).toBe(6);
    const pulled = await call("GET", `/api/passwords/sync?since=${encodeURIComponent(since)}`);
    expect(pulled.body.changes).toContainEqual(expect.objectContaining({ id, _deleted: true }));
  });

  it("keeps SSH keys: made or imported, offered by `vault ssh-agent` to ssh-add, ssh-keygen's signing and an ssh login", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vault-ssh-"));
    dirs.push(dir);
    const sock = join(dir, "agent.sock");
    const tool = (cmd: string, args: string[], input?: string) =>
      run(cmd, args, { PATH: process.env.PATH ?? "", SSH_AUTH_SOCK: sock }, input);
    const gitSign = (pubFile: string) =>
      tool("ssh-keygen", [
        "-Y",
        "sign",
        "-n",
        "git",
        "-f",
        join(dir, pubFile),
        join(dir, "commit.txt"),
      ]);

    const made = await vault(env, [
      "create",
      "Deploy key",
      "--ssh-generate",
      "--comment",
      "deploy@ci",
      "--json",
    ]);
    expect(made.code, made.stderr).toBe(0);
    const pub = (await vault(env, ["get", "Deploy key", "-f", "public_key"])).stdout;
    expect(pub).toMatch(/^ssh-ed25519 AAAA\S+ deploy@ci$/);
    writeFileSync(join(dir, "deploy.pub"), `${pub}\n`);
    // The fingerprint the vault shows is OpenSSH's own.
    const fp = (await vault(env, ["get", "Deploy key", "-f", "fingerprint"])).stdout;
    expect(
      (await tool("ssh-keygen", ["-l", "-E", "sha256", "-f", join(dir, "deploy.pub")])).out,
    ).toContain(fp);

    // The private key leaves the vault as the key file OpenSSH itself writes: ssh-keygen reads it.
    // (Not beside deploy.pub: ssh-keygen -Y sign would take a private key file there over the agent.)
    const exported = join(dir, "exported-key");
    writeFileSync(exported, (await vault(env, ["get", "Deploy key", "-f", "private_key"])).stdout, {
      mode: 0o600,
    });
    expect((await tool("ssh-keygen", ["-y", "-f", exported])).out.trim()).toBe(pub);
    rmSync(exported);
    // A key made by OpenSSH, imported; one behind a passphrase and one of another type refused.
    expect(
      (
        await tool("ssh-keygen", [
          "-q",
          "-t",
          "ed25519",
          "-N",
          "",
          "-C",
          "laptop",
          "-f",
          join(dir, "id"),
        ])
      ).code,
    ).toBe(0);
    const imported = await vault(env, ["create", "Laptop key", "--ssh-key-file", join(dir, "id")]);
    expect(imported.code, imported.stderr).toBe(0);
    expect((await vault(env, ["get", "Laptop key", "-f", "public_key"])).stdout).toBe(
      readFileSync(join(dir, "id.pub"), "utf8").trim(),
    );
    await tool("ssh-keygen", [
      "-q",
      "-t",
      "ed25519",
      "-N",
      "a passphrase",
      "-f",
      join(dir, "locked"),
    ]);
    const locked = await vault(env, [
      "create",
      "Locked key",
      "--ssh-key-file",
      join(dir, "locked"),
    ]);
    expect([locked.code, locked.stderr]).toEqual([
      2,
      expect.stringContaining("protected by a passphrase"),
    ]);
    // ECDSA and RSA keys are kept too; a DSA key, which OpenSSH itself no longer makes, would be
    // refused as the unit tests show for short RSA keys.
    const others: string[] = [];
    for (const [name, args] of [
      ["ecdsa", ["-t", "ecdsa"]],
      ["rsa", ["-t", "rsa", "-b", "3072"]],
    ] as const) {
      await tool("ssh-keygen", [
        "-q",
        ...args,
        "-N",
        "",
        "-C",
        `${name}@ci`,
        "-f",
        join(dir, name),
      ]);
      const kept = await vault(env, ["create", `${name} key`, "--ssh-key-file", join(dir, name)]);
      expect(kept.code, kept.stderr).toBe(0);
      const line = readFileSync(join(dir, `${name}.pub`), "utf8").trim();
      expect((await vault(env, ["get", `${name} key`, "-f", "public_key"])).stdout).toBe(line);
      // Its public half alone, with no private key file beside it: ssh-keygen must ask the agent.
      writeFileSync(join(dir, `${name}-listed.pub`), `${line}\n`);
      others.push(line);
    }

    // The private key is sealed: not on the server in the clear.
    const rows = (await call("GET", "/api/passwords?limit=100")).body.data;
    expect(JSON.stringify(rows)).not.toContain(
      readFileSync(join(dir, "id"), "utf8").split("\n")[1],
    );

    const started = await vault(env, ["ssh-agent", "--socket", sock]);
    expect([started.code, started.stdout]).toEqual([
      0,
      `SSH_AUTH_SOCK=${sock}; export SSH_AUTH_SOCK;\n`,
    ]);
    try {
      const listed = await tool("ssh-add", ["-L"]);
      expect(listed.code, listed.err).toBe(0);
      expect(listed.out.trim().split("\n").sort()).toEqual(
        [pub, readFileSync(join(dir, "id.pub"), "utf8").trim(), ...others].sort(),
      );

      // Git's SSH signing: ssh-keygen -Y sign with the public key file signs through the agent,
      // and -Y verify accepts the signature for that key (each kind: Ed25519, ECDSA, RSA).
      writeFileSync(join(dir, "commit.txt"), "tree 1234\nauthor someone\n\nA commit\n");
      for (const [pubFile, line] of [
        ["deploy.pub", pub],
        ["ecdsa-listed.pub", others[0]!],
        ["rsa-listed.pub", others[1]!],
      ]) {
        const signed = await gitSign(pubFile);
        expect(signed.code, signed.err).toBe(0);
        writeFileSync(join(dir, "allowed"), `signer@ci ${line}\n`);
        const verified = await tool(
          "ssh-keygen",
          ["-Y", "verify", "-f", join(dir, "allowed"), "-I", "signer@ci", "-n", "git"].concat([
            "-s",
            join(dir, "commit.txt.sig"),
          ]),
          readFileSync(join(dir, "commit.txt"), "utf8"),
        );
        expect([verified.code, verified.out], pubFile).toEqual([
          0,
          expect.stringContaining('Good "git" signature'),
        ]);
        rmSync(join(dir, "commit.txt.sig"));
      }

      // A login to a real sshd that takes the Deploy key alone, ssh holding no key but the
      // agent's (test/cli/sshd.ts); sshd names the key it accepted: the vault's, by fingerprint.
      sshd = await startSshd(pub);
      const login = await sshd.ssh(sock, "echo logged-in");
      expect([login.code, login.out], login.err).toEqual([0, "logged-in\n"]);
      // (Its source port left out: "port _".)
      const accepted = () =>
        (sshd!.log().match(/^Accepted publickey .*$/gm) ?? []).map((l) =>
          l.replace(/ port \d+ /, " port _ "),
        );
      expect(accepted()).toEqual([
        `Accepted publickey for ${sshd.user} from 127.0.0.1 port _ ssh2: ED25519 ${fp}`,
      ]);

      // Locked, the agent offers nothing and signs nothing.
      expect((await vault(env, ["lock"])).code).toBe(0);
      expect((await tool("ssh-add", ["-L"])).out).not.toContain("ssh-ed25519");
      expect((await gitSign("deploy.pub")).code).not.toBe(0);
      // Nor logs in: the same ssh to the same sshd is refused.
      const refused = await sshd.ssh(sock, "echo logged-in");
      expect([refused.code, refused.out, refused.err]).toEqual([
        255,
        "",
        expect.stringContaining("Permission denied (publickey)"),
      ]);
      expect(accepted()).toHaveLength(1);
    } finally {
      spawn("pkill", ["-f", sock]);
    }
    const open = await vault(env, ["unlock", "--passphrase-fd", "3"], { fd3: PASSPHRASE });
    expect(open.code).toBe(0);
    for (const name of ["Deploy key", "Laptop key"])
      expect((await vault(env, ["delete", name])).code).toBe(0);
  });

  it("locks on `vault lock`, and signs out on `vault logout`", async () => {
    expect((await vault(env, ["lock"])).code).toBe(0);
    expect((await vault(env, ["get", "GitHub"])).code).toBe(4);
    expect((await vault(env, ["logout"])).code).toBe(0);
    const status = await vault(env, ["status", "--json"]);
    expect([status.code, JSON.parse(status.stdout)]).toEqual([
      3,
      { signedIn: false, unlocked: false },
    ]);
  });

  it("signs in again with the device authorization grant, as the same device", async () => {
    let stderr = "";
    const login = vault(env, ["login", "--device", "--server", at.base, "--issuer", at.issuer], {
      onStderr: (t) => (stderr = t),
    });
    const [, complete] = await waitFor(() => stderr, /\(or open (\S+)\)/);
    expect(stderr).toMatch(/enter the code [A-Z]{4}-[A-Z]{4}/);
    const page = await signInAtProvider(complete!, user.email, DEV_PASSWORD);
    expect(page.status).toBe(200);
    const done = await login;
    expect([done.code, done.stdout]).toEqual([0, expect.stringMatching(/^Signed in to /)]);
    const devices = await call("GET", "/api/devices");
    expect(
      devices.body.devices.filter((d: { browser: string }) => d.browser === "vault CLI"),
    ).toHaveLength(1);
    const open = await vault(env, ["unlock", "--passphrase-fd", "3"], { fd3: PASSPHRASE });
    expect(open.code).toBe(0);
    expect((await vault(env, ["get", "vault://personal/Mail/username"])).stdout).toBe("me");

    // An access token at its end is renewed with the refresh token, without a new sign-in.
    const file = join(env.VAULT_CLI_HOME!, "session.json");
    const stored = JSON.parse(readFileSync(file, "utf8"));
    expect(stored.tokens.refresh).toEqual(expect.any(String));
    writeFileSync(file, JSON.stringify({ ...stored, tokens: { ...stored.tokens, expiresAt: 0 } }));
    const sync = await vault(env, ["sync", "--json"]);
    expect([sync.code, JSON.parse(sync.stdout)]).toEqual([0, { entries: 5 }]);
    const renewed = JSON.parse(readFileSync(file, "utf8"));
    expect(renewed.tokens.access).not.toBe(stored.tokens.access);
    expect(renewed.tokens.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect((await vault(env, ["lock"])).code).toBe(0);
  });
});
