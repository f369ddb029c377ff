/**
 * `vault create`, `vault edit` and `vault delete`: entries written from the terminal as the web
 * app writes them. The agent seals each change under the vault key (core/vault's sealInput: the
 * envelope, the blind indexes and host hashes) and sends it as one sync mutation, so the server
 * sees what the web app would send and every other device picks it up at its next pull.
 *
 * A password is never an argument (a command line is readable by every user of the machine and
 * lands in shell history): it comes from a prompt that does not echo, the first line of a file
 * descriptor, or the vault's own generator.
 */
import type { ApiClient, WireMutation } from "../core/api";
import type { EntrySecrets, VaultKeys } from "../core/crypto";
import { carried, passwordDates, sealInput, type EntryInput } from "../core/vault";
import { readFileSync } from "node:fs";
import { generateSshKey, importSshKey, SshKeyError, type SshKey } from "../core/entry";
import { generatePassword } from "../src/kernel/password-generator";
import { CliError, EXIT, usage } from "./errors";
import { passphraseFromFd, promptPassphrase } from "./prompt";

/** What a create sets, or an edit changes (a field left out is kept as it is). */
export type EntryFields = {
  name?: string;
  url?: string;
  username?: string;
  notes?: string;
  folder?: string;
  password?: string;
  /** An SSH key: the entry is then of the SSH key kind. */
  ssh?: SshKey;
};

type Opts = Record<string, string | boolean | undefined>;
const str = (v: Opts[string]) => (typeof v === "string" ? v : undefined);

/** The fields named by a command's options, the password read from where the person said. */
export async function fieldsOf(o: Opts): Promise<EntryFields> {
  const sources = ["password-fd", "password-prompt", "generate"].filter((k) => o[k] !== undefined);
  if (sources.length > 1)
    throw usage(`Give the password one way: ${sources.map((s) => `--${s}`).join(" or ")}`);
  if (o.length !== undefined && !o.generate) throw usage("--length goes with --generate");
  const out: EntryFields = {};
  for (const k of ["name", "url", "username", "notes", "folder"] as const) {
    const v = str(o[k]);
    if (v !== undefined) out[k] = v;
  }
  if (out.name !== undefined && !out.name.trim()) throw usage("--name cannot be empty");
  const fd = str(o["password-fd"]);
  if (fd !== undefined) out.password = passphraseFromFd(fd);
  else if (o["password-prompt"]) out.password = await promptPassphrase("Password: ");
  else if (o.generate) {
    const length = Number(str(o.length) ?? 20);
    if (!Number.isInteger(length) || length < 4 || length > 1024)
      throw usage("--length takes a whole number from 4 to 1024");
    out.password = generatePassword({
      length,
      lower: true,
      upper: true,
      digits: true,
      symbols: true,
    });
  }
  if (o["ssh-generate"] && o["ssh-key-file"])
    throw usage("Give the SSH key one way: --ssh-generate or --ssh-key-file");
  if (o.comment !== undefined && !o["ssh-generate"])
    throw usage("--comment goes with --ssh-generate");
  if (o["ssh-generate"]) out.ssh = await generateSshKey(str(o.comment) ?? "");
  const file = str(o["ssh-key-file"]);
  if (file !== undefined) out.ssh = await sshKeyFromFile(file);
  return out;
}

async function sshKeyFromFile(path: string): Promise<SshKey> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw usage(`Cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return await importSshKey(text);
  } catch (e) {
    if (e instanceof SshKeyError) throw new CliError(`${path}: ${e.message}`, EXIT.USAGE);
    throw e;
  }
}

/** The entry a create makes of the fields: a login like the web app's new entry, or an SSH key. */
export function newEntry(name: string, f: EntryFields): EntryInput {
  if (!name.trim()) throw usage("An entry needs a name");
  return {
    name: name.trim(),
    website: "",
    url: f.url ?? "",
    tags: [],
    username: f.username ?? "",
    password: f.password ?? "",
    notes: f.notes ?? "",
    category: "",
    totp: "",
    ...(f.folder?.trim() ? { folder: f.folder.trim() } : {}),
    ...(f.ssh ? { kind: "ssh_key" as const, ssh: f.ssh } : {}),
  };
}

/**
 * An edit of an opened entry: the fields named change, everything else (custom fields, passkeys,
 * TOTP, history, another client's newer keys) is carried as it was, and a new password pushes the
 * old one onto the entry's history, as the web app's form does.
 */
export function editedEntry(
  meta: { name: string; website: string | null; url: string | null; tags: string[] },
  before: EntrySecrets,
  f: EntryFields,
  now: string,
): EntryInput {
  const input: EntryInput = {
    ...before,
    name: f.name?.trim() ?? meta.name,
    website: f.url !== undefined ? "" : (meta.website ?? ""),
    url: f.url ?? meta.url ?? "",
    tags: meta.tags,
    ...(f.username !== undefined ? { username: f.username } : {}),
    ...(f.notes !== undefined ? { notes: f.notes } : {}),
    ...(f.password !== undefined ? { password: f.password } : {}),
    ...(f.folder !== undefined ? { folder: f.folder.trim() } : {}),
  };
  return { ...carried(before, input), ...passwordDates(before, input, now) };
}

/** Sends one sealed change; anything but "applied" is a failure the person reads. */
export async function pushOne(
  api: ApiClient,
  keys: VaultKeys,
  userId: string,
  change:
    | { action: "create" | "update"; id: string; input: EntryInput }
    | { action: "delete"; id: string },
): Promise<void> {
  const clientUpdatedAt = new Date().toISOString();
  const mutation: WireMutation =
    change.action === "delete"
      ? { action: "delete", id: change.id, clientUpdatedAt }
      : {
          action: change.action,
          id: change.id,
          data: (await sealInput(keys, userId, change.id, change.input)).data,
          clientUpdatedAt,
        };
  const { results } = await api.syncPush([mutation]);
  const r = results.find((x) => x.id === change.id);
  if (r?.status === "applied") return;
  if (r?.status === "conflict_server_wins")
    throw new CliError(
      "The entry changed on another device first: run `vault sync` and try again",
      EXIT.FAILED,
    );
  if (r?.code === "NOT_FOUND")
    throw new CliError("The entry is no longer on the server: run `vault sync`", EXIT.NOT_FOUND);
  throw new CliError(`The server refused: ${r?.error ?? "no answer for the entry"}`, EXIT.SERVER);
}
