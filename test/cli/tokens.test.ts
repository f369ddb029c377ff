/**
 * Machine tokens end to end (docs/cli.md, "Tokens for machines and agents"): the real command
 * against a real worker. A person makes a token for a shared vault; a machine with nothing but the
 * token (no sign-in, no agent, a configuration folder of its own) runs a program with a secret
 * masked, reads a field and fills a template; the server's log holds each read with the token's
 * name and reason; a revoked token is refused with a non-zero exit and nothing runs or is logged.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, sharingApi } from "../../core/api";
import { deriveVaultKeys, makeSharingKeyPair, PBKDF2_ITERATIONS } from "../../core/crypto";
import { sealInput } from "../../core/vault";
import { addVaultEntry, createVault, openVault, vaultsApi } from "../../core/vaults";
import { person, signIn, startServers, type Person, type Servers } from "./servers";
import { vault, type CliEnv } from "./support";

const PASSPHRASE = "token side passphrase";
const DB_PASSWORD = "db-p4ss-wörd-0123456789";
let at: Servers;
let alice: Person;
let machine: { env: CliEnv; dir: string };

type Read = { token_name: string; reason: string | null; entries: number };
const reads = async () => (await alice.call("GET", "/api/tokens/reads")).body.reads as Read[];

beforeAll(async () => {
  at = await startServers("cli-tokens");
  alice = await person(at, "tokens");
  await signIn(at, alice);
  const keys = await deriveVaultKeys(PASSPHRASE, alice.sub, PBKDF2_ITERATIONS, 1);
  // A personal entry, so the unlock checks the passphrase against it.
  const id = crypto.randomUUID();
  const { data } = await sealInput(keys, alice.sub, id, {
    name: "Personal mail",
    url: "",
    website: "mail.example",
    tags: [],
    category: "",
    username: "alice",
    password: "personal secret",
    notes: "",
    totp: "",
  });
  expect(
    (
      await alice.call("POST", "/api/passwords/sync", {
        mutations: [{ action: "create", id, data, clientUpdatedAt: new Date().toISOString() }],
      })
    ).status,
  ).toBe(200);
  // The sharing key and a shared vault, made as the web app makes them.
  const home = alice.env.VAULT_CLI_HOME!;
  const api = new ApiClient(at.base, async () => {
    const s = JSON.parse(readFileSync(join(home, "session.json"), "utf8"));
    return s.tokens.access as string;
  });
  const pair = await makeSharingKeyPair(keys);
  await sharingApi(api).putKey(pair.publicKey, pair.wrappedPrivateKey);
  const vapi = vaultsApi(api);
  const me = { userId: alice.sub, publicKey: { x: pair.publicKey.x, y: pair.publicKey.y } };
  const made = await createVault(vapi, me, "Deploy");
  const opened = await openVault(vapi, { userId: alice.sub, privateKey: pair.privateKey }, made);
  await addVaultEntry(vapi, opened!, {
    name: "Database",
    website: "db.example",
    url: null,
    secrets: {
      username: "deploy",
      password: DB_PASSWORD,
      notes: "",
      category: "",
      totp: "",
    },
  });
  const open = await vault(alice.env, ["unlock", "--passphrase-fd", "3"], { fd3: PASSPHRASE });
  expect(open.code, open.stderr).toBe(0);
  const dir = mkdtempSync(join(tmpdir(), "vault-machine-"));
  machine = { dir, env: { VAULT_CLI_HOME: dir, VAULT_AGENT_DIR: dir, VAULT_SERVER: at.base } };
}, 600_000);

afterAll(async () => {
  if (alice) {
    await vault(alice.env, ["lock"]);
    alice.cleanup();
  }
  if (machine) rmSync(machine.dir, { recursive: true, force: true });
  await at?.stop();
});

describe("vault token", () => {
  let token = "";
  let tokenId = "";

  it("makes a token for a shared vault, printed once; the server lists it and holds no secret of it", async () => {
    const r = await vault(alice.env, [
      "token",
      "create",
      "--vault",
      "deploy",
      "--name",
      "CI deploy",
      "--expires",
      "1d",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const made = JSON.parse(r.stdout) as { token: string; id: string; vault: string };
    expect(made.vault).toBe("Deploy");
    expect(made.token).toMatch(/^vtk_[0-9a-f-]{36}_[A-Za-z0-9_-]{43}$/);
    token = made.token;
    tokenId = made.id;
    const listed = await alice.call("GET", "/api/tokens");
    expect(listed.body.tokens).toEqual([
      expect.objectContaining({ id: tokenId, name: "CI deploy", state: "active" }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(token.slice(-43));
    const plain = await vault(alice.env, ["token", "list"]);
    expect(plain.stdout).toContain(`${tokenId}\tCI deploy\tactive`);
    // A vault the person has none of: exit 6, nothing made.
    const none = await vault(alice.env, ["token", "create", "--vault", "Nope", "--name", "x"]);
    expect(none.code).toBe(6);
    expect((await alice.call("GET", "/api/tokens")).body.tokens).toHaveLength(1);
  });

  it("runs a program with the token alone: the secret in its environment, masked in its output, the read logged with name and reason", async () => {
    const r = await vault(
      { ...machine.env, VAULT_TOKEN: token, DB_PASS: "vault://Deploy/Database/password" },
      [
        "run",
        "--reason",
        "deploy #41",
        "--",
        "sh",
        "-c",
        `echo "pw=$DB_PASS"; test "$DB_PASS" = '${DB_PASSWORD}' && echo same; echo "token=\${VAULT_TOKEN:-none}"`,
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("pw=<concealed by vault>\nsame\ntoken=none\n");
    expect(existsSync(join(machine.dir, "session.json"))).toBe(false);
    const got = await vault({ ...machine.env, VAULT_TOKEN: token }, [
      "get",
      "vault://Deploy/Database/username",
      "--reason",
      "who deploys",
    ]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toBe("deploy");
    const tpl = join(machine.dir, "app.env.tpl");
    writeFileSync(tpl, "DB_USER={{ vault://Deploy/Database/username }}\n");
    const filled = await vault({ ...machine.env, VAULT_TOKEN: token }, ["inject", "-i", tpl]);
    expect(filled.code, filled.stderr).toBe(0);
    expect(filled.stdout).toBe("DB_USER=deploy\n");
    expect(await reads()).toEqual([
      expect.objectContaining({ token_name: "CI deploy", reason: null, entries: 1 }),
      expect.objectContaining({ token_name: "CI deploy", reason: "who deploys", entries: 1 }),
      expect.objectContaining({ token_name: "CI deploy", reason: "deploy #41", entries: 1 }),
    ]);
    const log = await vault(alice.env, ["token", "reads", "--id", tokenId]);
    expect(log.stdout).toContain("\tCI deploy\t1\tdeploy #41\n");
    expect((await alice.call("GET", "/api/tokens")).body.tokens[0].last_used_at).not.toBeNull();
  });

  it("a reference outside the token's vault fails before anything starts", async () => {
    const marker = join(machine.dir, "started");
    const r = await vault(
      { ...machine.env, VAULT_TOKEN: token, MAIL: "vault://personal/Personal%20mail/password" },
      ["run", "--", "sh", "-c", `touch ${marker}`],
    );
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/opens the vault "Deploy" only/);
    expect(existsSync(marker)).toBe(false);
    const bad = await vault({ ...machine.env, VAULT_TOKEN: "vtk_nonsense" }, [
      "get",
      "vault://Deploy/Database/password",
    ]);
    expect(bad.code).toBe(2);
  });

  it("a revoked token is refused at once: non-zero exit, nothing started, nothing logged", async () => {
    const before = (await reads()).length;
    const r = await vault(alice.env, ["token", "revoke", tokenId]);
    expect(r.code, r.stderr).toBe(0);
    const marker = join(machine.dir, "after-revoke");
    const run = await vault(
      { ...machine.env, VAULT_TOKEN: token, DB_PASS: "vault://Deploy/Database/password" },
      ["run", "--reason", "after revoke", "--", "sh", "-c", `touch ${marker}`],
    );
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/refused the token: This token is revoked/);
    expect(run.stdout).toBe("");
    expect(existsSync(marker)).toBe(false);
    expect(await reads()).toHaveLength(before);
    expect((await alice.call("GET", "/api/tokens")).body.tokens[0]).toMatchObject({
      state: "revoked",
      revoked_reason: "owner",
    });
  });
});
