/**
 * Local vault operations: every change is encrypted, written to the local store and queued in one
 * transaction; the sync engine (or the service worker's background sync) pushes it later.
 */
import {
  blindIndexes,
  DecryptionError,
  domainOf,
  queryTokens,
  type BlindIndexes,
  type EntrySecrets,
  type Envelope,
  type VaultKeys,
  isBound,
  KeyRollbackError,
  LegacyRefusedError,
  MisplacedEnvelopeError,
  openEntry,
  placeOf,
  sealEntry,
} from "../crypto";
import {
  type LocalDb,
  type LocalEntry,
  type MutationData,
  type PendingMutation,
  byEntryName,
} from "../store";
import type { EntryReader, ReaderResult } from "./entry-reader";
import { hostHashes } from "../hosts";
import { slicer, sortInSlices } from "./next-task";
import { passkeyLabel } from "../passkeys";
import { PLACEHOLDER_VERSION, withSyncLock } from "../sync";

export type EntryInput = EntrySecrets & {
  name: string;
  website: string;
  url: string;
  tags: string[];
};

/** Whether this device still opens unbound (version 1) envelopes of the user's vault. */
export type LegacyPolicy = () => Promise<boolean>;

/** What a create or update sends: plaintext metadata, the envelope and the blind indexes (extra addresses' hashes included, even none). */
function mutationData(
  meta: { name: string; website: string | null; url: string | null; tags: string[] },
  envelope: Envelope,
  idx: BlindIndexes,
  hosts: string[],
): MutationData {
  return {
    ...meta,
    ...envelope,
    encryption_version: 3,
    name_hash: idx.name_hash,
    username_hash: idx.username_hash,
    domain_hash: idx.domain_hash ?? null,
    search_tokens: idx.search_tokens,
    host_hashes: hosts,
  };
}

/**
 * An existing entry with a new envelope (same plaintext metadata), its blind indexes under `keys`,
 * and the update mutation that carries it.
 */
export async function withEnvelope(
  keys: VaultKeys,
  userId: string,
  e: LocalEntry,
  envelope: Envelope,
  secrets: Pick<EntrySecrets, "username" | "urls">,
  now: string,
): Promise<{ entry: LocalEntry; mutation: PendingMutation }> {
  const idx = await blindIndexes(keys, {
    name: e.name,
    website: e.website ?? e.url ?? "",
    username: secrets.username,
  });
  const data = mutationData(
    e,
    envelope,
    idx,
    await hostHashes(keys, secrets.urls, e.website ?? e.url ?? ""),
  );
  return {
    entry: { ...e, ...envelope, search_tokens: idx.search_tokens, updated_at: now },
    mutation: { userId, action: "update", entryId: e.id, clientUpdatedAt: now, data },
  };
}

/** An entry sealed again, bound to its place: the in-browser migration of unbound entries. */
export async function resealed(
  keys: VaultKeys,
  userId: string,
  e: LocalEntry,
  secrets: EntrySecrets,
  now: string,
) {
  return withEnvelope(
    keys,
    userId,
    e,
    await sealEntry(keys, placeOf(userId, e), secrets),
    secrets,
    now,
  );
}

/** An entry as the server stores it under V3, its envelope bound to its id, owner and website. */
export async function sealInput(
  keys: VaultKeys,
  userId: string,
  id: string,
  input: EntryInput,
): Promise<{ data: MutationData; tokens: string[] }> {
  const name = input.name.trim();
  if (!name) throw new Error("A name is required");
  const website = domainOf(input.website || input.url) || null;
  const url = input.url.trim() || null;
  const envelope = await sealEntry(keys, placeOf(userId, { id, website, url }), {
    username: input.username,
    password: input.password,
    notes: input.notes,
    category: input.category,
    totp: input.totp,
    address: url ?? website ?? "",
    ...(input.favorite ? { favorite: true } : {}),
    ...(input.folder?.trim() ? { folder: input.folder.trim() } : {}),
    ...(input.password_changed_at ? { password_changed_at: input.password_changed_at } : {}),
    ...(input.password_history?.length ? { password_history: input.password_history } : {}),
    ...(input.passkeys?.length ? { passkeys: input.passkeys } : {}),
    ...modelOf(input),
  });
  const idx = await blindIndexes(keys, {
    name,
    website: input.website || input.url,
    username: input.username,
  });
  const hosts = await hostHashes(keys, input.urls, input.website || input.url);
  const data = {
    ...mutationData({ name, website, url, tags: input.tags }, envelope, idx, hosts),
    has_passkey: !!input.passkeys?.length,
    passkey_label: passkeyLabel(input.passkeys),
  };
  return { data, tokens: idx.search_tokens };
}

/** The kind, extra addresses, custom fields, details and unknown keys of an input, those it sets. */
function modelOf(input: EntrySecrets): Partial<EntrySecrets> {
  const out: Partial<EntrySecrets> = {};
  if (input.kind && input.kind !== "login") out.kind = input.kind;
  if (input.urls?.length) out.urls = input.urls;
  if (input.fields?.length) out.fields = input.fields;
  if (input.card) out.card = input.card;
  if (input.identity) out.identity = input.identity;
  if (input.ssh) out.ssh = input.ssh;
  if (input.extra && Object.keys(input.extra).length) out.extra = input.extra;
  return out;
}

/**
 * What an edit keeps of the entry as it was: a form that does not show a part of the payload
 * (custom fields, extra addresses, another client's newer keys) leaves it as it was; a form that
 * does sets the key, even to nothing.
 */
export function carried(before: EntrySecrets | null, input: EntryInput): EntryInput {
  if (!before) return input;
  const out = { ...input };
  for (const k of ["kind", "urls", "fields", "card", "identity", "ssh", "extra"] as const) {
    if (!(k in input) && before[k] !== undefined) (out as Record<string, unknown>)[k] = before[k];
  }
  // Passkeys are removed one at a time (the rest passed, possibly none), never by leaving them out.
  if (input.passkeys === undefined && before.passkeys !== undefined) out.passkeys = before.passkeys;
  return out;
}

/** Previous passwords an entry keeps: enough to undo a mistaken change, few enough to stay small. */
export const PASSWORD_HISTORY_LENGTH = 5;

/**
 * The password's dates after an edit: a new password starts its age now and pushes the old one
 * onto the history; an unchanged one keeps what the entry held (forms do not carry these fields).
 * Each history item says when that password stopped being the current one.
 */
export function passwordDates(
  before: EntrySecrets | null,
  input: EntrySecrets,
  now: string,
): Pick<EntrySecrets, "password_changed_at" | "password_history"> {
  if (!before)
    return {
      password_changed_at: input.password_changed_at,
      password_history: input.password_history,
    };
  if (before.password === input.password) {
    return {
      password_changed_at: before.password_changed_at ?? input.password_changed_at,
      password_history: before.password_history ?? input.password_history,
    };
  }
  const past = before.password ? [{ password: before.password, changed_at: now }] : [];
  return {
    password_changed_at: input.password ? now : undefined,
    password_history: [...past, ...(before.password_history ?? [])].slice(
      0,
      PASSWORD_HISTORY_LENGTH,
    ),
  };
}

export { byEntryName } from "../store";
const INDEX_PARALLEL = 32;
/** Entries per message to the reader worker: one answer, one task on the page, per batch (200 made tasks of over 50 ms on a loaded machine). */
export const READER_BATCH = 50;

export class Vault {
  constructor(
    readonly db: LocalDb,
    readonly userId: string,
    private readonly keys: VaultKeys,
    /** Unbound envelopes are refused unless this says otherwise (trust.ts: until the vault was seen fully bound). */
    private readonly allowLegacy: LegacyPolicy = async () => false,
  ) {}

  private seal(id: string, input: EntryInput): Promise<{ data: MutationData; tokens: string[] }> {
    return sealInput(this.keys, this.userId, id, input);
  }

  private local(
    id: string,
    data: MutationData,
    tokens: string[],
    createdAt: string,
    now: string,
  ): LocalEntry {
    return {
      userId: this.userId,
      id,
      name: data.name,
      website: data.website ?? null,
      url: data.url ?? null,
      tags: data.tags ?? [],
      encryption_version: 3,
      wrapped_item_key: data.wrapped_item_key,
      encrypted_data: data.encrypted_data,
      created_at: createdAt,
      updated_at: now,
      search_tokens: tokens,
      ...(data.has_passkey ? { has_passkey: true } : {}),
    };
  }

  async create(input: EntryInput): Promise<string> {
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    const { data, tokens } = await this.seal(id, {
      ...input,
      password_changed_at: input.password_changed_at ?? (input.password ? now : undefined),
    });
    await this.db.applyLocal(this.local(id, data, tokens, now, now), {
      userId: this.userId,
      action: "create",
      entryId: id,
      data,
      clientUpdatedAt: now,
    });
    return id;
  }

  /** Each edit re-encrypts under a fresh item key and sends the whole envelope. */
  async update(id: string, input: EntryInput): Promise<void> {
    const prev = await this.db.entry(this.userId, id);
    if (!prev) throw new Error("This entry is no longer in the vault");
    await this.write(prev, await this.secrets(prev).catch(() => null), input);
  }

  /**
   * Changes part of an entry's secrets, its metadata as it is, reading and opening the entry once
   * and writing it (with its queued mutation) in one transaction: the passkey sign counter's store,
   * which the page's assertion waits for. `edit` gives the changed part, or null to leave the entry
   * as it is; false when nothing was written (the entry gone, or `edit` said null).
   */
  async change(
    id: string,
    edit: (
      secrets: EntrySecrets,
    ) => Promise<Partial<EntrySecrets> | null> | Partial<EntrySecrets> | null,
  ): Promise<boolean> {
    const prev = await this.db.entry(this.userId, id);
    if (!prev) return false;
    const before = await this.secrets(prev);
    const changed = await edit(before);
    if (!changed) return false;
    await this.write(prev, before, {
      ...before,
      ...changed,
      name: prev.name,
      website: prev.website ?? "",
      url: prev.url ?? "",
      tags: prev.tags,
    });
    return true;
  }

  private async write(
    prev: LocalEntry,
    before: EntrySecrets | null,
    input: EntryInput,
  ): Promise<void> {
    const now = new Date().toISOString();
    // An edit that does not name the passkeys (the entry form) keeps them; deleting one passes the rest.
    const { data, tokens } = await this.seal(prev.id, {
      ...carried(before, input),
      ...passwordDates(before, input, now),
    });
    await this.db.applyLocal(this.local(prev.id, data, tokens, prev.created_at, now), {
      userId: this.userId,
      action: "update",
      entryId: prev.id,
      data,
      clientUpdatedAt: now,
    });
  }

  /**
   * Re-seals an entry with a new favourite mark or folder, its other fields as they are: a change
   * like any edit, so it syncs to the person's other devices and the server sees only ciphertext.
   */
  async organise(id: string, change: { favorite?: boolean; folder?: string }): Promise<void> {
    const e = await this.db.entry(this.userId, id);
    if (!e) throw new Error("This entry is no longer in the vault");
    const s = await this.secrets(e);
    await this.update(id, {
      ...s,
      ...change,
      name: e.name,
      website: e.website ?? "",
      url: e.url ?? "",
      tags: e.tags,
    });
  }

  /**
   * Brings back an entry deleted on this device (the toast's Undo): re-sealed and queued as an
   * update, which the server applies to a deleted entry as a restore, so it works offline like the
   * delete did, and a delete not yet sent merges with it in the queue. The stamp is this device's
   * clock, later than the delete it made.
   */
  async restore(e: LocalEntry): Promise<void> {
    const s = await this.secrets(e);
    await this.write(e, s, {
      ...s,
      name: e.name,
      website: e.website ?? "",
      url: e.url ?? "",
      tags: e.tags,
    });
  }

  async remove(id: string): Promise<void> {
    await this.db.applyLocal(null, {
      userId: this.userId,
      action: "delete",
      entryId: id,
      clientUpdatedAt: new Date().toISOString(),
    });
  }

  /**
   * The user's local entries, read once. The methods below take such a snapshot, so one paint of
   * a large vault reads the store once rather than once per step (each read deserialises every
   * entry with its search tokens).
   */
  entries(): Promise<LocalEntry[]> {
    return this.db.entries(this.userId);
  }

  /** By name (ties by id), sorted in slices: collating thousands of names at once is a long task. */
  async list(all?: LocalEntry[]): Promise<LocalEntry[]> {
    return sortInSlices(all ?? (await this.entries()), byEntryName);
  }

  /**
   * The secrets of a local entry, opened in its place. `envelope` may name a fresher copy of the
   * same entry's envelope (the reveal endpoint's); it is held to the same place. An unbound entry
   * that opens is re-sealed and queued (the migration: on first open).
   */
  async secrets(
    e: LocalEntry,
    envelope?: { wrapped_item_key: string; encrypted_data: string },
  ): Promise<EntrySecrets> {
    const env =
      envelope ??
      (e.wrapped_item_key && e.encrypted_data
        ? { wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data }
        : null);
    if (!env) throw new DecryptionError();
    const opened = await openEntry(this.keys, placeOf(this.userId, e), env, {
      allowLegacy: await this.allowLegacy(),
    });
    // A fresher copy from the server is not this entry's local copy: the next pull brings it, then it migrates.
    if (opened.legacy && (!envelope || envelope.encrypted_data === e.encrypted_data))
      await this.migrateOne(e, opened.secrets);
    return opened.secrets;
  }

  private migrateOne(e: LocalEntry, secrets: EntrySecrets): Promise<void> {
    return withSyncLock(async () => {
      // A pull may have replaced the entry meanwhile: only the copy that was opened is re-sealed.
      const now = await this.db.entry(this.userId, e.id);
      if (
        !now ||
        now.encrypted_data !== e.encrypted_data ||
        now.wrapped_item_key !== e.wrapped_item_key
      )
        return;
      const { entry, mutation } = await resealed(
        this.keys,
        this.userId,
        now,
        secrets,
        new Date().toISOString(),
      );
      await this.db.applyLocal(entry, mutation);
    });
  }

  /** Re-seals every unbound entry this key opens; returns how many were queued. */
  async migrate(all?: LocalEntry[]): Promise<number> {
    let n = 0;
    // A pass over every entry after a pull: in slices, so the check alone never makes a long task.
    const clock = slicer();
    for (const e of all ?? (await this.entries())) {
      if (clock.due()) await clock.yield();
      if (e.encryption_version !== 3 || !e.wrapped_item_key || !e.encrypted_data) continue;
      if (isBound({ wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data }))
        continue;
      try {
        await this.secrets(e);
        n++;
      } catch {
        // Left as it is: ensureIndexed counts it among the entries that do not open.
      }
    }
    return n;
  }

  /** Entries still unbound locally (queued re-seals count as bound). */
  async legacyCount(all?: LocalEntry[]): Promise<number> {
    let n = 0;
    const clock = slicer();
    for (const e of all ?? (await this.entries())) {
      if (clock.due()) await clock.yield();
      if (
        e.encryption_version === 3 &&
        e.wrapped_item_key &&
        e.encrypted_data &&
        !isBound({ wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data })
      )
        n++;
    }
    return n;
  }

  /**
   * Encrypts placeholder entries (encryption_version -1, made by the server from discovery) on
   * first sight, as the spec intends: each becomes a V3 update with its username and an empty
   * password, queued through sync. One already queued is left to its queued change.
   */
  async sealPlaceholders(all?: LocalEntry[]): Promise<number> {
    const queued = new Set((await this.db.pending(this.userId)).map((p) => p.entryId));
    const open = (all ?? (await this.entries())).filter(
      (e) => e.encryption_version === PLACEHOLDER_VERSION && !queued.has(e.id),
    );
    for (const e of open) {
      await this.update(e.id, {
        name: e.name,
        website: e.website ?? "",
        url: e.url ?? "",
        tags: e.tags,
        username: e.username ?? "",
        password: "",
        notes: "",
        category: "",
        totp: "",
      });
    }
    return open.length;
  }

  /**
   * Computes the blind-index tokens of entries that came from the server (sync does not carry
   * them). Entries this key cannot open are left unindexed; returns how many there are, and why
   * when the client refused them (moved, replayed or unbound envelopes) rather than lacking the key.
   * `opened` hears each entry's secrets as they are read, so a page that wants them opens no entry twice.
   * `reader` opens them off the main thread (entry-reader.ts); what it does not open is opened here.
   */
  async ensureIndexed(
    all?: LocalEntry[],
    opened?: (e: LocalEntry, secrets: EntrySecrets) => void,
    reader?: EntryReader,
  ): Promise<{ unreadable: number; reasons: string[]; indexed: number; sealed: number }> {
    const snapshot = all ?? (await this.entries());
    const sealed = await this.sealPlaceholders(snapshot);
    let unreadable = 0;
    const reasons = new Set<string>();
    const stale = snapshot.filter((e) => e.search_tokens === null);
    const done: {
      id: string;
      wrapped_item_key: string | null;
      encrypted_data: string | null;
      tokens: string[];
    }[] = [];
    const index = async (e: LocalEntry) => {
      let username = e.encryption_version === 3 ? null : "";
      if (username === null) {
        try {
          const secrets = await this.secrets(e);
          username = secrets.username;
          opened?.(e, secrets);
        } catch (err) {
          unreadable++;
          if (
            err instanceof MisplacedEnvelopeError ||
            err instanceof KeyRollbackError ||
            err instanceof LegacyRefusedError
          )
            reasons.add(err.message);
          return;
        }
      }
      const idx = await blindIndexes(this.keys, {
        name: e.name,
        website: e.website ?? e.url ?? "",
        username,
      });
      done.push({
        id: e.id,
        wrapped_item_key: e.wrapped_item_key,
        encrypted_data: e.encrypted_data,
        tokens: idx.search_tokens,
      });
    };
    // Web Crypto works off the main thread: a few dozen entries in flight keep it busy, where one
    // at a time would leave it idle between each open and hash (a new browser's first sync indexes all).
    const batch = reader ? READER_BATCH : INDEX_PARALLEL;
    for (let i = 0; i < stale.length; i += batch) {
      const slice = stale.slice(i, i + batch);
      const read = reader ? await reader.read(slice, true) : new Map<string, ReaderResult>();
      const rest: LocalEntry[] = [];
      for (const e of slice) {
        const r = read.get(e.id);
        if (!r?.secrets || !r.tokens) {
          rest.push(e);
          continue;
        }
        opened?.(e, r.secrets);
        done.push({
          id: e.id,
          wrapped_item_key: e.wrapped_item_key,
          encrypted_data: e.encrypted_data,
          tokens: r.tokens,
        });
      }
      for (let k = 0; k < rest.length; k += INDEX_PARALLEL)
        await Promise.all(rest.slice(k, k + INDEX_PARALLEL).map(index));
    }
    if (done.length) await this.db.setTokens(this.userId, done);
    return { unreadable, reasons: [...reasons], indexed: done.length, sealed };
  }

  /** Search by blind index: every hashed query word must be among the entry's hashed tokens. */
  async search(query: string, snapshot?: LocalEntry[]): Promise<LocalEntry[]> {
    const all = await this.list(snapshot);
    const wanted = await queryTokens(this.keys, query);
    if (wanted.length === 0) return all;
    return all.filter(
      (e) => e.search_tokens !== null && wanted.every((t) => e.search_tokens!.includes(t)),
    );
  }
}
