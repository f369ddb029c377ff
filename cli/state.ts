/**
 * Where the command line keeps what outlives one command: the sign-in (server, provider, tokens,
 * who) and this device's possession key in the configuration folder, each file 0600; the agent's
 * socket in a 0700 folder of its own. Nothing decrypted is ever written here: the vault key lives
 * only in the agent's memory (agent.ts).
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { CliError, EXIT } from "./errors";

export type Tokens = { access: string; refresh: string | null; expiresAt: number };

export type SignIn = {
  server: string;
  issuer: string;
  clientId: string;
  tokens: Tokens;
  user: { id: string; email: string | null };
  /** The highest key version this device has opened the vault with: an older one is refused. */
  keyFloor: number;
  /** The highest account key wrap revision seen (core/crypto/account-key.ts); absent before the first. */
  wrapFloor?: number;
};

export function configDir(): string {
  const dir =
    process.env.VAULT_CLI_HOME ??
    join(process.env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "credential-vault");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * The agent's folder: its socket is reachable by whoever can open the folder, so it must be this
 * user's alone. A folder that exists with wider rights or another owner is refused, not repaired:
 * someone else may already be listening there.
 */
export function agentDir(): string {
  const uid = process.getuid?.() ?? 0;
  const dir =
    process.env.VAULT_AGENT_DIR ??
    (process.env.XDG_RUNTIME_DIR
      ? join(process.env.XDG_RUNTIME_DIR, "credential-vault")
      : join(tmpdir(), `credential-vault-${uid}`));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0)
    throw new CliError(
      `The agent folder ${dir} is not a folder of this user's alone (mode 0700): not using it`,
    );
  return dir;
}

export const socketPath = () => join(agentDir(), "agent.sock");

const signInFile = () => join(configDir(), "session.json");
export const deviceKeyFile = () => join(configDir(), "device-key.json");

/** Writes through a temporary file, so a reader never sees half a file; 0600 from the start. */
export function writePrivate(path: string, value: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new CliError(`${path} is not readable: ${(e as Error).message}`);
  }
}

export const loadSignIn = () => readJson<SignIn>(signInFile());
export const saveSignIn = (s: SignIn) => writePrivate(signInFile(), s);
export const forgetSignIn = () => rmSync(signInFile(), { force: true });

export function requireSignIn(): SignIn {
  const s = loadSignIn();
  if (!s) throw new CliError("Not signed in: run `vault login` first", EXIT.SIGNED_OUT);
  return s;
}
