/**
 * The background agent: the one process that holds the vault key, for as long as the vault is
 * unlocked. It listens on a unix socket in a folder of this user's alone (state.ts, agentDir),
 * answers one JSON request per connection, and ends itself (dropping the key with its memory) on
 * `vault lock`, after the idle time without a request, or when the sign-in is gone. Nothing it
 * opens is written anywhere.
 */
import { createServer, type Socket } from "node:net";
import { rmSync } from "node:fs";
import { ApiError, OfflineError } from "../core/api";
import { keyVersion } from "../core/crypto";
import { openLabel, sealLabel } from "../core/links";
import { apiFor } from "./device";
import { CliError, EXIT } from "./errors";
import { entryFieldsForLink } from "./link-fields";
import { freshSignIn } from "./oidc";
import { saveSignIn, socketPath } from "./state";
import { makeTokenInAgent } from "./token-make";
import type { ImportProvider } from "../core/importers";
import { readAll, unlockKeys, VaultView, type ImportRow } from "./vault-view";
import type { EntryFields } from "./write";

export const DEFAULT_IDLE_LOCK_S = 15 * 60;

export type AgentRequest =
  | { op: "status" }
  | { op: "unlock"; passphrase: string; idleLockSeconds?: number }
  | { op: "lock" }
  | { op: "sync" }
  | { op: "list" }
  | { op: "search"; query: string }
  | { op: "get"; entry: string; field: string }
  | { op: "resolve"; refs: string[] }
  | { op: "create"; name: string; fields: EntryFields }
  | { op: "edit"; entry: string; fields: EntryFields }
  | { op: "delete"; entry: string }
  | { op: "items" }
  | { op: "attachment"; entry: string; name: string }
  | { op: "exportPlain" }
  | { op: "exportSealed" }
  | { op: "importBatch"; rows: ImportRow[]; provider: ImportProvider; key: string }
  | { op: "linkFields"; entry: string }
  | { op: "sealLinkLabel"; label: string }
  | { op: "openLinkLabels"; labels: ({ iv: string; ciphertext: string } | null)[] }
  | { op: "sshKeys" }
  | { op: "sshSign"; blob: string; data: string; flags?: number }
  | { op: "tokenCreate"; vault: string; name: string; expiresAt: string };

export type AgentAnswer =
  | ({ ok: true } & Record<string, unknown>)
  | { ok: false; code: string; exit: number; message: string };

/** A request's failure as the person should read it; a server refusal keeps the server's words. */
export function failureOf(e: unknown): CliError {
  if (e instanceof CliError) return e;
  if (e instanceof ApiError && e.body.code === "STEP_UP_REQUIRED")
    return new CliError(
      "This needs a recent sign-in (the server asks for one of at most 5 minutes): run `vault login` and try again",
      EXIT.SIGNED_OUT,
    );
  if (e instanceof ApiError)
    return e.status === 401
      ? new CliError(
          `The server refused the sign-in (${e.body.error}): run \`vault login\``,
          EXIT.SIGNED_OUT,
        )
      : new CliError(`The server refused: ${e.body.error}`, EXIT.SERVER);
  if (e instanceof OfflineError)
    return new CliError("The server could not be reached", EXIT.SERVER);
  return new CliError(e instanceof Error ? e.message : String(e));
}

export async function runAgent(): Promise<void> {
  process.title = "vault-agent";
  const path = socketPath();
  let view: VaultView | null = null;
  let idleMs = DEFAULT_IDLE_LOCK_S * 1000;
  let lockAt = 0;
  let timer: NodeJS.Timeout | undefined;

  const server = createServer((socket) => void serve(socket));
  const stop = () => {
    // The key goes with the process; the socket file goes first so no one connects to a dying agent.
    rmSync(path, { force: true });
    server.close();
    process.exit(0);
  };
  const touch = () => {
    clearTimeout(timer);
    lockAt = Date.now() + idleMs;
    timer = setTimeout(stop, idleMs);
  };

  async function handle(req: AgentRequest): Promise<Record<string, unknown>> {
    if (req.op === "status")
      return view
        ? {
            unlocked: true,
            userId: view.userId,
            entries: view.size,
            lockAt: new Date(lockAt).toISOString(),
          }
        : { unlocked: false };
    if (req.op === "lock") {
      setImmediate(stop);
      return {};
    }
    if (req.op === "unlock") {
      if (req.idleLockSeconds) idleMs = req.idleLockSeconds * 1000;
      const signIn = await freshSignIn();
      const api = await apiFor(signIn.server);
      const rows = await readAll(api);
      const { keys, wrap } = await unlockKeys(
        rows,
        signIn.user.id,
        req.passphrase,
        { keyVersion: signIn.keyFloor, revision: signIn.wrapFloor ?? 0 },
        api,
      );
      const wrapFloor = Math.max(signIn.wrapFloor ?? 0, wrap?.revision ?? 0);
      if (keyVersion(keys) > signIn.keyFloor || wrapFloor > (signIn.wrapFloor ?? 0))
        saveSignIn({
          ...signIn,
          keyFloor: Math.max(signIn.keyFloor, keyVersion(keys)),
          wrapFloor,
        });
      view = new VaultView(signIn.user.id, keys, rows, api);
      touch();
      return { entries: rows.length };
    }
    if (!view) throw new CliError("The vault is locked: run `vault unlock`", EXIT.LOCKED);
    touch();
    switch (req.op) {
      case "sync": {
        const signIn = await freshSignIn();
        if (signIn.user.id !== view.userId) {
          setImmediate(stop);
          throw new CliError("Another account is signed in now: the vault is locked", EXIT.LOCKED);
        }
        view.replace(await readAll(await apiFor(signIn.server)));
        return { entries: view.size };
      }
      case "list":
        return { entries: view.list() };
      case "search":
        return { entries: await view.search(req.query) };
      case "get":
        return { value: await view.field(req.entry, req.field) };
      case "resolve":
        return { values: Object.fromEntries(await view.resolve(req.refs)) };
      case "create":
        return { entry: await view.create(req.name, req.fields) };
      case "edit":
        return { entry: await view.edit(req.entry, req.fields) };
      case "delete":
        return { entry: await view.remove(req.entry) };
      case "attachment":
        return await view.attachment(req.entry, req.name);
      case "items":
        return await view.items();
      case "exportPlain": {
        // The server's rule for a file anyone can read (a sign-in of at most 300 s, a registered
        // device) and its activity log, as for the web app's plain export; then what it holds now.
        const api = await apiFor((await freshSignIn()).server);
        await api.exportPlain();
        view.replace(await readAll(api));
        return { entries: view.size };
      }
      case "exportSealed": {
        // The server's rule for an encrypted export, as the web app's Export asks it (a registered
        // device; a recent sign-in from one not trusted) and its activity log; then what it holds now.
        const api = await apiFor((await freshSignIn()).server);
        await api.exportPasswords();
        view.replace(await readAll(api));
        return { entries: view.size };
      }
      case "importBatch":
        return await view.importBatch(req.rows, req.provider, req.key);
      case "linkFields":
        return { fields: await entryFieldsForLink(view, req.entry) };
      case "sealLinkLabel":
        return { sealed: await sealLabel(view.keys.vaultKey, req.label) };
      case "openLinkLabels": {
        const key = view.keys.vaultKey;
        return { labels: await Promise.all(req.labels.map((l) => (l ? openLabel(key, l) : null))) };
      }
      case "sshKeys":
        return { keys: await view.sshKeys() };
      case "sshSign":
        return { signature: await view.sshSign(req.blob, req.data, req.flags ?? 0) };
      case "tokenCreate":
        return await makeTokenInAgent(view.keys, view.userId, req);
    }
    throw new CliError("Unknown request", EXIT.USAGE);
  }

  async function serve(socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("error", () => undefined);
    // Listened to, not iterated: leaving an async iteration early destroys the socket, and the
    // answer still has to go out on it.
    const data = await new Promise<string>((resolve) => {
      let text = "";
      const onData = (chunk: string) => {
        text += chunk;
        if (!text.includes("\n") && text.length <= 1_000_000) return;
        socket.off("data", onData);
        resolve(text);
      };
      socket.on("data", onData);
      socket.on("end", () => resolve(text));
    });
    let answer: AgentAnswer;
    try {
      answer = { ok: true, ...(await handle(JSON.parse(data) as AgentRequest)) };
    } catch (e) {
      const f = failureOf(e);
      answer = { ok: false, code: f.code, exit: f.exitCode, message: f.message };
      // A passphrase that does not open the vault leaves no agent behind.
      if (!view) setImmediate(stop);
    }
    socket.end(`${JSON.stringify(answer)}\n`);
  }

  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, resolve);
  });
  // Until the first unlock arrives: an agent started for one that never comes does not linger.
  timer = setTimeout(stop, 30_000);
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.on("SIGHUP", stop);
}
