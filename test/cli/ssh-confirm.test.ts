/**
 * `vault ssh-agent --confirm` (docs/cli.md, "SSH keys and the SSH agent"): the real agent against a
 * real worker, its own server pair, driven by OpenSSH's own tools. Before the first signature of
 * each connection it runs the program in SSH_ASKPASS with SSH_ASKPASS_PROMPT=confirm and a prompt
 * naming the key's comment and fingerprint: a yes lets `ssh-keygen -Y sign` (Git's SSH signing)
 * make a signature `ssh-keygen -Y verify` accepts; a no, an answer other than yes, or no askpass
 * program at all refuses it. Listing the keys asks nothing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person, signIn, startServers, type Person, type Servers } from "./servers";
import { run } from "./sshd";
import { VAULT_BIN, vault, waitFor } from "./support";

const PASSPHRASE = "ssh confirm passphrase";

let at: Servers;
let me: Person;
let dir: string;
let pub: string;
let fingerprint: string;
const running: ChildProcess[] = [];

/** An askpass program that notes each question (its prompt kind and text) and answers `exit`. */
function askpass(name: string, exit: number, say = "") {
  const path = join(dir, `${name}.sh`);
  writeFileSync(
    path,
    `#!/bin/sh\nprintf '%s\\n%s\\n---\\n' "$SSH_ASKPASS_PROMPT" "$1" >> '${join(dir, `${name}.log`)}'\n${say ? `echo ${say}\n` : ""}exit ${exit}\n`,
    { mode: 0o700 },
  );
  return path;
}
/** The questions an askpass program was asked: [kind, prompt] each. */
const asked = (name: string): string[][] => {
  let text = "";
  try {
    text = readFileSync(join(dir, `${name}.log`), "utf8");
  } catch {
    return [];
  }
  return text
    .split("---\n")
    .filter(Boolean)
    .map((q) => {
      const [kind, ...prompt] = q.replace(/\n$/, "").split("\n");
      return [kind!, prompt.join("\n")];
    });
};

/** `vault ssh-agent --confirm --foreground` on a socket of its own, with `env` added. */
async function confirmingAgent(name: string, env: Record<string, string>) {
  const sock = join(dir, `${name}.sock`);
  const child = spawn(
    process.execPath,
    [VAULT_BIN, "ssh-agent", "--confirm", "--foreground", "--socket", sock],
    { env: { PATH: process.env.PATH ?? "", HOME: me.env.VAULT_CLI_HOME!, ...me.env, ...env } },
  );
  running.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  await waitFor(() => out, /SSH_AUTH_SOCK=/);
  return sock;
}

const tool = (sock: string, cmd: string, args: string[], input?: string) =>
  run(cmd, args, { PATH: process.env.PATH ?? "", SSH_AUTH_SOCK: sock }, input);
const gitSign = (sock: string) =>
  tool(sock, "ssh-keygen", [
    "-Y",
    "sign",
    "-n",
    "git",
    "-f",
    join(dir, "deploy.pub"),
    join(dir, "commit.txt"),
  ]);
async function verifies(sock: string) {
  const r = await tool(
    sock,
    "ssh-keygen",
    ["-Y", "verify", "-f", join(dir, "allowed"), "-I", "signer@ci", "-n", "git"].concat([
      "-s",
      join(dir, "commit.txt.sig"),
    ]),
    readFileSync(join(dir, "commit.txt"), "utf8"),
  );
  rmSync(join(dir, "commit.txt.sig"));
  return r;
}
async function lists(sock: string) {
  const listed = await tool(sock, "ssh-add", ["-L"]);
  expect(listed.code, listed.err).toBe(0);
  expect(listed.out.trim()).toBe(pub);
}

beforeAll(async () => {
  at = await startServers("cli-ssh-confirm");
  me = await person(at, "sshc");
  dir = mkdtempSync(join(tmpdir(), "vault-ssh-confirm-"));
  await signIn(at, me);
  const open = await vault(me.env, ["unlock", "--passphrase-fd", "3"], { fd3: PASSPHRASE });
  expect(open.code, open.stderr).toBe(0);
  const made = await vault(me.env, [
    "create",
    "Deploy key",
    "--ssh-generate",
    "--comment",
    "deploy@ci",
  ]);
  expect(made.code, made.stderr).toBe(0);
  pub = (await vault(me.env, ["get", "Deploy key", "-f", "public_key"])).stdout;
  fingerprint = (await vault(me.env, ["get", "Deploy key", "-f", "fingerprint"])).stdout;
  expect(fingerprint).toMatch(/^SHA256:/);
  writeFileSync(join(dir, "deploy.pub"), `${pub}\n`);
  writeFileSync(join(dir, "allowed"), `signer@ci ${pub}\n`);
  writeFileSync(join(dir, "commit.txt"), "tree 1234\nauthor someone\n\nA commit\n");
}, 600_000);

afterAll(async () => {
  for (const child of running) child.kill();
  if (me) {
    await vault(me.env, ["lock"]);
    me.cleanup();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  await at?.stop();
});

describe("vault ssh-agent --confirm", () => {
  it("asks SSH_ASKPASS before each new connection's first signature: a yes signs, listing asks nothing", async () => {
    const sock = await confirmingAgent("yes", { SSH_ASKPASS: askpass("yes", 0) });
    await lists(sock);
    expect(asked("yes")).toEqual([]);

    const signed = await gitSign(sock);
    expect(signed.code, signed.err).toBe(0);
    expect(await verifies(sock)).toMatchObject({
      code: 0,
      out: expect.stringContaining('Good "git" signature'),
    });
    const question = ["confirm", `Allow use of key deploy@ci?\nKey fingerprint ${fingerprint}.`];
    expect(asked("yes")).toEqual([question]);
    // Another `git commit` is another connection: asked again.
    expect((await gitSign(sock)).code).toBe(0);
    rmSync(join(dir, "commit.txt.sig"));
    expect(asked("yes")).toEqual([question, question]);
  });

  it("refuses the signature on a no or on any answer but yes; listing still asks nothing", async () => {
    for (const [name, exit, say] of [
      ["no", 1, ""],
      ["says-no", 0, "no"],
    ] as const) {
      const sock = await confirmingAgent(name, { SSH_ASKPASS: askpass(name, exit, say) });
      const signed = await gitSign(sock);
      expect(signed.code, name).not.toBe(0);
      expect(readdirSync(dir)).not.toContain("commit.txt.sig");
      expect(asked(name), name).toHaveLength(1);
      await lists(sock);
      expect(asked(name), name).toHaveLength(1);
    }
  });

  it("refuses every signature when no SSH_ASKPASS is set (started in the background, as `eval` does)", async () => {
    const sock = join(dir, "none.sock");
    const started = await vault(me.env, ["ssh-agent", "--confirm", "--socket", sock]);
    expect([started.code, started.stdout]).toEqual([
      0,
      `SSH_AUTH_SOCK=${sock}; export SSH_AUTH_SOCK;\n`,
    ]);
    try {
      await lists(sock);
      expect((await gitSign(sock)).code).not.toBe(0);
      expect(readdirSync(dir)).not.toContain("commit.txt.sig");
    } finally {
      // The background agent this test started: found by its own socket's path, ended by its id.
      for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
        let cmd = "";
        try {
          cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        } catch {
          continue;
        }
        if (cmd.includes(sock) && cmd.includes("--foreground")) process.kill(Number(pid));
      }
    }
  });
});
