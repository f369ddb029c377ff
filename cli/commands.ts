/** What each command does; main.ts parses the arguments and prints. */
import { existsSync } from "node:fs";
import { generatePassword } from "../src/kernel/password-generator";
import { DEFAULT_IDLE_LOCK_S, failureOf } from "./agent";
import { ask, startAgent, tryAsk } from "./agent-client";
import { apiFor, registerDevice } from "./device";
import { CliError, EXIT, usage } from "./errors";
import { claimsOf, discover, loginWithBrowser, loginWithDeviceCode } from "./oidc";
import { passphraseFromFd, promptPassphrase } from "./prompt";
import { isReference, parseReference } from "./references";
import { writeNew } from "./transfer";
import { machineToken, readToken } from "./tokens";
import { forgetSignIn, loadSignIn, requireSignIn, saveSignIn } from "./state";

export type Opts = Record<string, string | boolean | undefined>;
/** Progress and prompts go to stderr: stdout carries only what a script reads. */
export const say = (line: string) => process.stderr.write(`${line}\n`);

const DEFAULT_CLIENT_ID = "credential-vault-cli";
const str = (v: Opts[string]) => (typeof v === "string" ? v : undefined);

function origin(url: string, what: string): string {
  try {
    const u = new URL(url);
    if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error();
    return what === "issuer" ? url.replace(/\/$/, "") : u.origin;
  } catch {
    throw usage(`--${what} takes an http(s) address, not "${url}"`);
  }
}

export async function login(o: Opts) {
  const before = loadSignIn();
  const server = origin(
    str(o.server) ?? process.env.VAULT_SERVER ?? before?.server ?? missing("server"),
    "server",
  );
  const issuer = origin(
    str(o.issuer) ?? process.env.VAULT_ISSUER ?? before?.issuer ?? missing("issuer"),
    "issuer",
  );
  const clientId = str(o["client-id"]) ?? before?.clientId ?? DEFAULT_CLIENT_ID;
  const doc = await discover(issuer);
  const tokens = o.device
    ? await loginWithDeviceCode(doc, clientId, say)
    : await loginWithBrowser(doc, clientId, {
        openBrowser: !o["no-browser"] && !process.env.VAULT_NO_BROWSER,
        say,
      });
  const claims = claimsOf(tokens.access);
  // Another account's agent must not go on answering for the new one.
  if (before && before.user.id !== claims.sub) await tryAsk({ op: "lock" }).catch(() => null);
  saveSignIn({
    server,
    issuer,
    clientId,
    tokens,
    user: { id: claims.sub, email: claims.email },
    keyFloor: before?.user.id === claims.sub ? before.keyFloor : 1,
    wrapFloor: before?.user.id === claims.sub ? before.wrapFloor : undefined,
  });
  const api = await apiFor(server);
  const session = await api.session();
  // The token is always presented here; "nobody" would mean the server did not receive it.
  if (!session.user) throw new Error("The server did not receive the sign-in's token");
  const user = session.user;
  let device: { id: string; name: string } | null = null;
  try {
    const d = await registerDevice(api, server);
    device = { id: d.id, name: d.device_name };
  } catch (e) {
    // Signed in all the same: the vault opens; the Devices page shows the refusal's reason.
    say(`This computer was not registered as a device: ${failureOf(e).message}`);
  }
  return { server, user: { id: user.id, email: user.email }, device };
}

function missing(what: string): never {
  throw usage(`vault login needs --${what} (or VAULT_${what.toUpperCase()}) the first time`);
}

export async function logout() {
  const s = loadSignIn();
  await tryAsk({ op: "lock" }).catch(() => null);
  if (s?.tokens.refresh) {
    // RFC 7009: the refresh token is worth nothing once revoked; an unreachable provider is no reason to stay signed in here.
    const doc = await discover(s.issuer).catch(() => null);
    const at = (doc as { revocation_endpoint?: string } | null)?.revocation_endpoint;
    if (at)
      await fetch(at, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: s.tokens.refresh, client_id: s.clientId }),
      }).catch(() => null);
  }
  forgetSignIn();
  return { signedOut: true };
}

export async function status() {
  const s = loadSignIn();
  if (!s) return { signedIn: false as const, unlocked: false };
  const agent = await tryAsk({ op: "status" });
  return {
    signedIn: true as const,
    server: s.server,
    user: s.user,
    tokenExpiresAt: new Date(s.tokens.expiresAt * 1000).toISOString(),
    renewable: s.tokens.refresh !== null,
    unlocked: agent?.unlocked === true,
    ...(agent?.unlocked ? { entries: agent.entries, lockAt: agent.lockAt } : {}),
  };
}

export async function unlock(o: Opts) {
  requireSignIn();
  const minutes = str(o["idle-lock"]);
  const idle = minutes === undefined ? DEFAULT_IDLE_LOCK_S : Math.round(Number(minutes) * 60);
  if (!Number.isFinite(idle) || idle < 1 || idle > 24 * 3600)
    throw usage("--idle-lock takes minutes, from a second's worth up to 1440");
  const fd = str(o["passphrase-fd"]);
  const passphrase = fd !== undefined ? passphraseFromFd(fd) : await promptPassphrase();
  if (!passphrase) throw new CliError("No passphrase given", EXIT.WRONG_PASSPHRASE);
  const running = await tryAsk({ op: "status" });
  if (running?.unlocked) return { entries: running.entries, alreadyUnlocked: true };
  if (!running) await startAgent();
  if (!process.stderr.isTTY) say("Opening the vault…");
  const answer = await ask({ op: "unlock", passphrase, idleLockSeconds: idle });
  return { entries: answer.entries };
}

export async function lock() {
  await tryAsk({ op: "lock" });
  return { locked: true };
}

/** `vault get <entry> --attachment NAME --output FILE`: the attachment decrypted into a new 0600 file. */
export async function getAttachment(target: string, o: Opts) {
  if (machineToken()) throw usage("A machine token reads fields, not attachments");
  const name = str(o.attachment)!;
  const file = str(o.output);
  if (!file) throw usage("--attachment writes to a file: give --output <file>");
  if (o.field) throw usage("--attachment and --field name different things: give one");
  if (!o.force && existsSync(file))
    throw new CliError(`${file} exists: not overwritten (--force replaces it)`, EXIT.FAILED);
  const r = await ask({ op: "attachment", entry: target, name });
  const bytes = Buffer.from(r.content as string, "base64");
  writeNew(file, bytes, o.force === true);
  return { file, attachment: r.filename as string, bytes: bytes.length };
}

export async function get(target: string, o: Opts): Promise<string> {
  const token = machineToken();
  if (isReference(target)) {
    if (o.field) throw usage("A reference names its field: leave out --field");
    parseReference(target);
    if (token)
      return (await (await readToken(token, str(o.reason) ?? null)).resolve([target])).get(target)!;
    const answer = await ask({ op: "resolve", refs: [target] });
    return (answer.values as Record<string, string>)[target]!;
  }
  const field = str(o.field) ?? "password";
  if (token) return (await readToken(token, str(o.reason) ?? null)).field(target, field);
  return (await ask({ op: "get", entry: target, field })).value as string;
}

export function generate(o: Opts): string {
  const length = Number(str(o.length) ?? 20);
  if (!Number.isInteger(length) || length < 4 || length > 1024)
    throw usage("--length takes a whole number from 4 to 1024");
  return generatePassword({
    length,
    lower: !o["no-lower"],
    upper: !o["no-upper"],
    digits: !o["no-digits"],
    symbols: !o["no-symbols"],
  });
}
