/**
 * A private OpenSSH server for the SSH agent's login test: Debian's /usr/sbin/sshd (openssh-server,
 * installed by scripts/setup.sh) started by the test, never the package's system service, on a free
 * loopback port, as the user running the tests, with a configuration, host key and authorized keys
 * file of its own in a temporary folder. It takes public keys only, and only the one given: no
 * password, no keyboard-interactive, no PAM, so a login can succeed through the agent's signature
 * alone.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/dovecot-lib.mjs";

export type Ran = { code: number; out: string; err: string };

/** Runs a program to its end with exactly `env` (nothing of the test runner's own environment). */
export function run(cmd: string, args: string[], env: Record<string, string>, input = "") {
  return new Promise<Ran>((resolve, reject) => {
    const child = spawn(cmd, args, { env });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    // A program that reads no input (ssh-keygen -l) may exit before the pipe is written to: the
    // write then fails with EPIPE, which says nothing about the program (its code and output do).
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

export type Sshd = {
  port: number;
  user: string;
  /** What sshd has written (`-e`: its log goes to standard error), for its "Accepted publickey" lines. */
  log: () => string;
  /** An `ssh <user>@127.0.0.1 <command>` whose only keys are the agent's at `socket`. */
  ssh: (socket: string, command: string) => Promise<Ran>;
  stop: () => Promise<void>;
};

const SSHD = "/usr/sbin/sshd";

/** Starts sshd taking `authorizedKey` (one OpenSSH public key line) for the current user. */
export async function startSshd(authorizedKey: string): Promise<Sshd> {
  if (!existsSync(SSHD))
    throw new Error(`${SSHD} is missing: scripts/setup.sh installs openssh-server (as root)`);
  const dir = mkdtempSync(join(tmpdir(), "vault-sshd-"));
  // ssh's own ~ is the password database's home, not $HOME; an empty HOME still keeps anything
  // that does read it (ssh-keygen, the shell) away from the machine's ~/.ssh.
  const home = join(dir, "home");
  mkdirSync(home);
  const user = userInfo().username;
  const hostKey = join(dir, "host_ed25519");
  const made = await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey], {
    PATH: process.env.PATH ?? "",
    HOME: home,
  });
  if (made.code !== 0) throw new Error(`ssh-keygen: ${made.err}`);
  writeFileSync(join(dir, "authorized_keys"), `${authorizedKey.trim()}\n`, { mode: 0o600 });
  // Run as root, sshd separates privileges and needs this empty folder (the package's service
  // makes it at boot; nothing here starts that service).
  if (process.getuid?.() === 0 && !existsSync("/run/sshd"))
    mkdirSync("/run/sshd", { mode: 0o755, recursive: true });

  const port = await freePort();
  const config = join(dir, "sshd_config");
  writeFileSync(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      "AuthorizedPrincipalsFile none",
      "AuthenticationMethods publickey",
      "PubkeyAuthentication yes",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "HostbasedAuthentication no",
      "UsePAM no",
      "StrictModes no",
      // Root may log in with a key only (OpenSSH's default, said here because a CI machine is root).
      "PermitRootLogin prohibit-password",
      `AllowUsers ${user}`,
      // VERBOSE names the key each login was accepted with (its SHA-256 fingerprint).
      "LogLevel VERBOSE",
      "",
    ].join("\n"),
  );
  const knownHosts = join(dir, "known_hosts");
  const hostPub = readFileSync(`${hostKey}.pub`, "utf8").split(" ").slice(0, 2).join(" ");
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostPub}\n`);

  // sshd re-executes itself for each connection, so it must be started by its absolute path.
  const child: ChildProcess = spawn(SSHD, ["-D", "-e", "-f", config], {
    env: { PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr!.on("data", (d) => (log += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const listening = `Server listening on 127.0.0.1 port ${port}`;
  for (const until = Date.now() + 20_000; !log.includes(listening); ) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`sshd did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }

  return {
    port,
    user,
    log: () => log,
    ssh: (socket, command) =>
      run(
        "ssh",
        [
          // No configuration file and no default key file: the agent's keys are all it has.
          "-F",
          "/dev/null",
          "-o",
          "IdentityFile=none",
          "-o",
          "IdentitiesOnly=no",
          "-o",
          `IdentityAgent=${socket}`,
          // The host key is known beforehand, so the server is ours and nothing is asked.
          "-o",
          "StrictHostKeyChecking=yes",
          "-o",
          `UserKnownHostsFile=${knownHosts}`,
          "-o",
          "GlobalKnownHostsFile=/dev/null",
          "-o",
          "BatchMode=yes",
          "-o",
          "ConnectTimeout=30",
          "-p",
          String(port),
          `${user}@127.0.0.1`,
          command,
        ],
        { PATH: process.env.PATH ?? "", HOME: home, SSH_AUTH_SOCK: socket },
      ),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
