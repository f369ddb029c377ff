/**
 * `vault ssh-agent`: the SSH agent protocol (draft-miller-ssh-agent) on a unix socket, answered
 * from the vault's SSH key entries, so `ssh`, `ssh-add -L` and Git's SSH commit signing use keys
 * that never sit in a file. This process holds no key: it asks the vault's own agent (agent.ts),
 * which lists the keys' public halves and opens an entry's private key for one signature only.
 * While the vault is locked it lists no key and refuses to sign.
 *
 * Messages handled: REQUEST_IDENTITIES (11) and SIGN_REQUEST (13); anything else, extensions
 * included, gets FAILURE (5), which clients treat as "not supported".
 *
 * With --confirm (as OpenSSH's `ssh-add -c`), the first signature with a key on each connection
 * waits for the person's yes, asked through the program in SSH_ASKPASS as OpenSSH's agent asks it
 * (ssh-confirm.ts). A connection is the only "client" this process can tell apart: Node has no
 * portable way to read the peer's process or user from a unix socket.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { SshReader, sshString } from "../core/entry";
import { tryAsk } from "./agent-client";
import { askToUse } from "./ssh-confirm";
import { CliError } from "./errors";
import { agentDir } from "./state";

const FAILURE = 5;
const REQUEST_IDENTITIES = 11;
const IDENTITIES_ANSWER = 12;
const SIGN_REQUEST = 13;
const SIGN_RESPONSE = 14;
/** Longest message taken (the protocol's own limit is 256 KiB). */
const MAX_MESSAGE = 256 * 1024;

export const defaultSshSocket = () => join(agentDir(), "ssh-agent.sock");

export type SshIdentity = { blob: string; comment: string };

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const frame = (type: number, body: Uint8Array = new Uint8Array()) =>
  Buffer.concat([u32(body.length + 1), Buffer.from([type]), body]);

const vaultKeys = async () =>
  ((await tryAsk({ op: "sshKeys" }).catch(() => null))?.keys ?? []) as SshIdentity[];

/**
 * One connection: with --confirm, the person's answer for each key it has asked to sign with (a
 * yes or a no holds for the connection, so a client retrying is not a new question each time).
 */
type Client = {
  confirm: boolean;
  answers: Map<string, boolean>;
  socket: Socket;
  log: (line: string) => void;
};

/** Whether this connection may sign with the key: always without --confirm, else as the person said. */
async function allowed(c: Client, blob: string): Promise<boolean> {
  if (!c.confirm) return true;
  const known = c.answers.get(blob);
  if (known !== undefined) return known;
  // A key the vault does not hold (or a locked vault) fails anyway: nothing to ask about.
  const key = (await vaultKeys()).find((k) => k.blob === blob);
  if (!key) return true;
  const yes = await askToUse(key, c.socket, c.log);
  c.answers.set(blob, yes);
  return yes;
}

/** One request's answer; a locked vault or an unknown key is a FAILURE. */
async function answer(type: number, body: Uint8Array, client: Client): Promise<Buffer> {
  if (type === REQUEST_IDENTITIES) {
    const keys = await vaultKeys();
    const parts = keys.flatMap((k) => [
      sshString(Buffer.from(k.blob, "base64")),
      sshString(k.comment),
    ]);
    return frame(IDENTITIES_ANSWER, Buffer.concat([u32(keys.length), ...parts]));
  }
  if (type === SIGN_REQUEST) {
    const r = new SshReader(body);
    const blob = Buffer.from(r.bytes()).toString("base64");
    const data = Buffer.from(r.bytes()).toString("base64");
    // draft-miller-ssh-agent section 4.5.1: the flags ask RSA keys for a SHA-2 signature.
    const flags = r.done ? 0 : r.uint32();
    if (!(await allowed(client, blob))) return frame(FAILURE);
    const signed = await tryAsk({ op: "sshSign", blob, data, flags }).catch(() => null);
    if (!signed) return frame(FAILURE);
    return frame(SIGN_RESPONSE, sshString(Buffer.from(signed.signature as string, "base64")));
  }
  return frame(FAILURE);
}

function serve(socket: Socket, log: (line: string) => void, confirm: boolean) {
  const client: Client = { confirm, answers: new Map(), socket, log };
  let pending = Buffer.alloc(0);
  let busy = Promise.resolve();
  socket.on("error", () => undefined);
  socket.on("data", (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const n = pending.readUInt32BE(0);
      if (n === 0 || n > MAX_MESSAGE) return void socket.destroy();
      if (pending.length < 4 + n) return;
      const type = pending[4]!;
      const body = pending.subarray(5, 4 + n);
      pending = pending.subarray(4 + n);
      // Answers go out in the order the requests came, as the protocol requires.
      busy = busy.then(async () => {
        const out = await answer(type, body, client).catch((e: unknown) => {
          log(`vault ssh-agent: ${e instanceof Error ? e.message : String(e)}`);
          return frame(FAILURE);
        });
        if (!socket.destroyed) socket.write(out);
      });
    }
  });
}

/** Listens until killed; the socket is this user's alone (0600, in the agent's 0700 folder). */
export async function runSshAgent(
  path: string,
  log: (line: string) => void,
  confirm = false,
): Promise<void> {
  rmSync(path, { force: true });
  const server = createServer((s) => serve(s, log, confirm));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, resolve);
  });
  chmodSync(path, 0o600);
  const stop = () => {
    rmSync(path, { force: true });
    server.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.on("SIGHUP", stop);
  await new Promise<never>(() => undefined);
}

/** Starts this command again in the background (`--foreground` there) and waits for its socket. */
export async function startSshAgent(path: string, confirm = false): Promise<void> {
  rmSync(path, { force: true });
  const child = spawn(
    process.execPath,
    [
      process.argv[1]!,
      "ssh-agent",
      "--foreground",
      "--socket",
      path,
      ...(confirm ? ["--confirm"] : []),
    ],
    { detached: true, stdio: "ignore", env: process.env },
  );
  child.unref();
  for (let waited = 0; waited < 10_000; waited += 25) {
    if (existsSync(path)) return;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new CliError("The SSH agent did not start");
}
