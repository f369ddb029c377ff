/**
 * The agent's view of the vault: the entries as the server lists them (ciphertext, plaintext
 * names, blind search tokens) and the vault keys, both in the agent's memory only. An entry is
 * opened when a command asks for one of its fields, and what it holds is never kept.
 */
import type { ApiClient, ListedEntry } from "../core/api";
import { codeOfField, normalizeAlgorithm, openTotpSecret, totpAt } from "../src/kernel/totp";
import {
  acceptKdf,
  decryptAttachment,
  decryptAttachmentInfo,
  DecryptionError,
  decryptLegacyEntry,
  isBound,
  AccountKeyRollbackError,
  type AccountKeyWrap,
  type KeyFloor,
  type RootFor,
  rootsOf,
  rootVaultKeys,
  unlockAccount,
  openEntry,
  PBKDF2_ITERATIONS,
  placeOf,
  queryTokens,
  wrapHeader,
  type EntrySecrets,
  type VaultKeys,
} from "../core/crypto";
import { openSshKey } from "../core/entry";
import {
  sealCredential,
  sealItem,
  type ImportedCredential,
  type ImportProvider,
  type VaultFileItem,
  vaultFileItem,
} from "../core/importers";
import type { StoredPasskey } from "../core/passkeys";
import { CliError, EXIT, usage } from "./errors";
import { FIELDS, parseReference, VAULTS } from "./references";
import { editedEntry, newEntry, pushOne, type EntryFields } from "./write";

/** The server's largest page (src/domains/passwords/schema.ts). */
const PAGE = 2000;

export type Row = ListedEntry;
/** An entry of an import: an item of the vault's own file, or another manager's credential. */
export type ImportRow =
  | { own: VaultFileItem }
  | { credential: ImportedCredential; passkeys?: StoredPasskey[] };
export type Listed = { id: string; name: string; website: string | null; updated_at: string };

export const listed = (e: Row): Listed => ({
  id: e.id,
  name: e.name,
  website: e.website ?? e.url,
  updated_at: e.updated_at,
});

/** Every live entry, page by page; `progress` hears of each page of a long first read. */
export async function readAll(
  api: ApiClient,
  progress: (done: number, total: number) => void = () => undefined,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = 1; ; page++) {
    const answer = await api.listPasswords(page, PAGE);
    rows.push(...answer.data);
    progress(rows.length, answer.pagination.total);
    if (answer.data.length < PAGE || rows.length >= answer.pagination.total) return rows;
  }
}

const envelopeOf = (e: Row) =>
  e.encryption_version === 3 && e.wrapped_item_key && e.encrypted_data
    ? { wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data }
    : null;

/**
 * The keys for a passphrase as the web app opens them (core/session, vaultKeys): the account key
 * its wrap holds, else (an account from before it) the passphrase-derived keys checked against the
 * vault (the newest bound entry names the key version and rounds in its wrap header and must open
 * in its place), whose first wrap is then written. A key version or wrap revision below `floor` is
 * a server replaying old wraps. An empty vault takes any passphrase, which becomes the vault's.
 */
export async function unlockKeys(
  rows: Row[],
  userId: string,
  passphrase: string,
  floor: KeyFloor,
  api: Pick<ApiClient, "accountKey" | "putAccountKey">,
): Promise<{ keys: VaultKeys; wrap: AccountKeyWrap | null }> {
  try {
    const opened = await unlockAccount({
      io: { get: () => api.accountKey(), put: (w) => api.putAccountKey(w) },
      userId,
      floor,
      roots: rootsOf(passphrase, userId),
      legacy: (roots) => passphraseKeys(rows, userId, floor.keyVersion, roots),
    });
    return { keys: opened.keys, wrap: opened.wrap };
  } catch (e) {
    if (e instanceof AccountKeyRollbackError) throw new CliError(e.message);
    if (e instanceof DecryptionError && !(e instanceof CliError)) throw wrong();
    throw e;
  }
}

async function passphraseKeys(
  rows: Row[],
  userId: string,
  floor: number,
  roots: RootFor,
): Promise<{ keys: VaultKeys; empty: boolean }> {
  const newest = [...rows].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  const bound = newest.find((e) => {
    const env = envelopeOf(e);
    return env !== null && isBound(env);
  });
  if (!bound) {
    const keys = await rootVaultKeys(
      await roots(PBKDF2_ITERATIONS),
      PBKDF2_ITERATIONS,
      Math.max(1, floor),
    );
    const legacy = newest.map(envelopeOf).find((e) => e !== null);
    if (legacy) await checked(() => decryptLegacyEntry(keys, legacy));
    return { keys, empty: !legacy };
  }
  const env = envelopeOf(bound)!;
  const header = wrapHeader(env.wrapped_item_key);
  if (!header) throw wrong();
  if (header.keyVersion < floor)
    throw new CliError(
      `The server sent the vault under key version ${header.keyVersion}, older than the ${floor} this device has opened: refused`,
    );
  const iterations = acceptKdf(header.iterations);
  const keys = await rootVaultKeys(await roots(iterations), iterations, header.keyVersion);
  await checked(() => openEntry(keys, placeOf(userId, bound), env));
  return { keys, empty: false };
}

const wrong = () => new CliError("This passphrase does not open the vault", EXIT.WRONG_PASSPHRASE);

async function checked<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof DecryptionError) throw wrong();
    throw e;
  }
}

export class VaultView {
  constructor(
    readonly userId: string,
    readonly keys: VaultKeys,
    private rows: Row[],
    private readonly api: ApiClient,
  ) {}

  replace(rows: Row[]) {
    this.rows = rows;
    this.ssh = null;
  }

  /** The SSH keys' public halves by entry, found by opening every entry once per reading of the vault. */
  private ssh: { id: string; blob: string; comment: string }[] | null = null;

  get size() {
    return this.rows.length;
  }

  list(): Listed[] {
    return this.rows.map(listed).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Blind-index search (core/crypto queryTokens): every hashed query word among the entry's tokens. */
  async search(query: string): Promise<Listed[]> {
    const wanted = await queryTokens(this.keys, query);
    return this.rows
      .filter((e) => wanted.every((t) => e.search_tokens.includes(t)))
      .map(listed)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** By id, else by name (case and surrounding spaces aside); two entries of one name are named by id. */
  find(nameOrId: string): Row {
    const byId = this.rows.find((e) => e.id === nameOrId);
    if (byId) return byId;
    const wanted = nameOrId.trim().toLowerCase();
    const named = this.rows.filter((e) => e.name.trim().toLowerCase() === wanted);
    if (named.length === 1) return named[0]!;
    if (named.length > 1)
      throw new CliError(
        `${named.length} entries are named "${nameOrId}": name one by its id (${named.map((e) => e.id).join(", ")})`,
        EXIT.NOT_FOUND,
      );
    throw new CliError(`No entry named "${nameOrId}"`, EXIT.NOT_FOUND);
  }

  async open(e: Row): Promise<EntrySecrets> {
    const env = envelopeOf(e);
    if (!env) throw new CliError(`"${e.name}" holds no sealed secrets`, EXIT.NOT_FOUND);
    try {
      return (await openEntry(this.keys, placeOf(this.userId, e), env)).secrets;
    } catch (err) {
      if (err instanceof DecryptionError)
        throw new CliError(`"${e.name}" does not open: ${err.message}`, EXIT.FAILED);
      throw err;
    }
  }

  /** One field of an entry; `totp` is the code of this moment. */
  async field(nameOrId: string, field: string): Promise<string> {
    const e = this.find(nameOrId);
    const s = await this.open(e);
    const value =
      field.toLowerCase() === "totp" && !s.totp && e.has_totp
        ? await this.serverTotp(e.id)
        : await fieldValue(e, s, field);
    if (value === null) throw new CliError(`"${e.name}" has no ${field}`, EXIT.NOT_FOUND);
    return value;
  }

  /** The code of a secret the entry's one-time-code tool keeps on the server, wrapped by the vault key. */
  private async serverTotp(id: string): Promise<string | null> {
    const cfg = await this.api.totp(id);
    if (!cfg.hasTotp || !cfg.secretEncrypted) return null;
    const algorithm = normalizeAlgorithm(cfg.algorithm ?? "SHA-1") ?? "SHA-1";
    const key = await openTotpSecret(this.keys.vaultKey, cfg.secretEncrypted, algorithm);
    return (await totpAt(key, Date.now(), cfg.digits ?? 6, cfg.period ?? 30)).code;
  }

  /** A new login sealed here and sent as one change; the view then lists it. */
  async create(name: string, f: EntryFields): Promise<Listed> {
    const id = crypto.randomUUID();
    const input = newEntry(name, f);
    if (input.password) input.password_changed_at = new Date().toISOString();
    await pushOne(this.api, this.keys, this.userId, { action: "create", id, input });
    await this.reread();
    return listed(this.find(id));
  }

  /** The fields named change; the rest of the entry is carried as it was. */
  async edit(nameOrId: string, f: EntryFields): Promise<Listed> {
    if (Object.keys(f).length === 0) throw usage("Name at least one field to change");
    const e = this.find(nameOrId);
    const input = editedEntry(e, await this.open(e), f, new Date().toISOString());
    await pushOne(this.api, this.keys, this.userId, { action: "update", id: e.id, input });
    await this.reread();
    return listed(this.find(e.id));
  }

  /** Moved to the Trash as the web app's delete does: every device's pull sees it go, the Trash restores it. */
  async remove(nameOrId: string): Promise<Listed> {
    const e = this.find(nameOrId);
    await pushOne(this.api, this.keys, this.userId, { action: "delete", id: e.id });
    await this.reread();
    return listed(e);
  }

  /** After a write, the vault as the server now holds it (its answer names only the one entry). */
  private async reread() {
    this.replace(await readAll(this.api));
  }

  /** Every entry opened whole, as the web app's export opens them; one that does not open is counted. */
  async items(): Promise<{ items: VaultFileItem[]; unreadable: number }> {
    const items: VaultFileItem[] = [];
    let unreadable = 0;
    for (const e of this.rows) {
      const secrets = envelopeOf(e) ? await this.open(e).catch(() => null) : null;
      if (!secrets) {
        unreadable++;
        continue;
      }
      items.push(vaultFileItem(e, secrets));
    }
    return { items, unreadable };
  }

  /**
   * One batch of an import, sealed here as the web app's import page seals it (core/importers:
   * an item of the vault's own file whole, another manager's credential with its passkeys) and
   * sent as one POST /api/passwords/import under the caller's idempotency key.
   */
  async importBatch(
    rows: ImportRow[],
    provider: ImportProvider,
    key: string,
  ): Promise<{ imported: number; errors: string[] }> {
    const sealed = await Promise.all(
      rows.map((r) =>
        "own" in r
          ? sealItem(this.keys, this.userId, r.own)
          : sealCredential(this.keys, this.userId, r.credential, r.passkeys),
      ),
    );
    const res = await this.api.importPasswords(sealed, provider, key);
    return { imported: res.imported, errors: res.errors };
  }

  /**
   * An attachment of an entry, by its file name, decrypted as the web app's download decrypts it
   * (core/crypto: the file key unwrapped by the vault key, then the content); base64 for the socket.
   */
  async attachment(
    nameOrId: string,
    filename: string,
  ): Promise<{ content: string; filename: string }> {
    const e = this.find(nameOrId);
    const { attachments } = await this.api.attachments(e.id);
    const named: string[] = [];
    for (const a of attachments) {
      const info = await decryptAttachmentInfo(this.keys.vaultKey, a).catch(() => null);
      if (info?.filename === filename) named.push(a.id);
    }
    if (named.length === 0)
      throw new CliError(`"${e.name}" has no attachment named "${filename}"`, EXIT.NOT_FOUND);
    if (named.length > 1)
      throw new CliError(
        `"${e.name}" has ${named.length} attachments named "${filename}"`,
        EXIT.FAILED,
      );
    const { attachment } = await this.api.attachment(named[0]!);
    const plain = await decryptAttachment(this.keys.vaultKey, attachment);
    return { content: Buffer.from(plain.content).toString("base64"), filename: plain.filename };
  }

  /** What an SSH agent lists: each SSH key entry's public key blob (base64) and comment. */
  async sshKeys(): Promise<{ blob: string; comment: string }[]> {
    if (!this.ssh) {
      const found: { id: string; blob: string; comment: string }[] = [];
      for (const e of this.rows) {
        if (!envelopeOf(e)) continue;
        const s = await this.open(e).catch(() => null);
        if (s?.kind !== "ssh_key" || !s.ssh) continue;
        const [, blob, ...comment] = s.ssh.public_key.trim().split(/\s+/);
        if (blob) found.push({ id: e.id, blob, comment: comment.join(" ") || e.name });
      }
      this.ssh = found;
    }
    return this.ssh.map(({ blob, comment }) => ({ blob, comment }));
  }

  /**
   * An SSH signature blob (its algorithm's name, then the signature: RFC 8709, RFC 5656, RFC 8332)
   * by the key whose public blob is `blob`, over `data` (both base64); `flags` are the agent
   * request's. The private key is opened from its entry for this signature and not kept.
   */
  async sshSign(blob: string, data: string, flags = 0): Promise<string> {
    await this.sshKeys();
    const known = this.ssh!.find((k) => k.blob === blob);
    if (!known) throw new CliError("No SSH key of the vault has that public key", EXIT.NOT_FOUND);
    const s = await this.open(this.find(known.id));
    if (!s.ssh) throw new CliError("The entry holds no SSH key", EXIT.NOT_FOUND);
    const key = await openSshKey(s.ssh.private_key);
    if (Buffer.from(key.blob).toString("base64") !== blob)
      throw new CliError("The entry's private key is not the one listed", EXIT.FAILED);
    return Buffer.from(await key.sign(Buffer.from(data, "base64"), flags)).toString("base64");
  }

  /** Every reference or none: the first that names nothing fails the lot, before anything uses them. */
  async resolve(refs: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const text of refs) {
      const ref = parseReference(text);
      if (!(VAULTS as readonly string[]).includes(ref.vault))
        throw new CliError(`${text}: no vault named "${ref.vault}"`, EXIT.NOT_FOUND);
      try {
        out.set(text, await this.field(ref.entry, ref.field));
      } catch (e) {
        if (e instanceof CliError) throw new CliError(`${text}: ${e.message}`, e.exitCode);
        throw e;
      }
    }
    return out;
  }
}

/** One field of an opened entry (a shared vault's, read with a machine token, too), or null. */
export async function fieldValue(
  e: Pick<Row, "name" | "url" | "website">,
  s: EntrySecrets,
  field: string,
): Promise<string | null> {
  const name = field.toLowerCase();
  switch (name as (typeof FIELDS)[number]) {
    case "password":
    case "username":
    case "notes":
      return s[name as "password"] || null;
    case "totp":
      return s.totp ? await codeOfField(s.totp) : null;
    case "url":
      return s.urls?.[0]?.url || e.url || s.address || null;
    case "website":
      return e.website || null;
    case "name":
      return e.name;
    case "public_key":
    case "fingerprint":
    case "private_key":
      return s.ssh?.[name as "public_key"] || null;
  }
  return s.fields?.find((f) => f.name.toLowerCase() === name)?.value ?? null;
}
