/**
 * Local vault operations: every change is encrypted, written to the local store and queued in one
 * transaction; the sync engine (or the service worker's background sync) pushes it later.
 */
import { blindIndexes, decryptEntry, DecryptionError, domainOf, encryptEntry, queryTokens, type EntrySecrets, type VaultKeys } from "./crypto";
import type { LocalDb, LocalEntry, MutationData } from "./db";
import { PLACEHOLDER_VERSION } from "./sync-engine";

export type EntryInput = EntrySecrets & { name: string; website: string; url: string; tags: string[] };

export class Vault {
  constructor(
    readonly db: LocalDb,
    readonly userId: string,
    private readonly keys: VaultKeys,
  ) {}

  private async seal(input: EntryInput): Promise<{ data: MutationData; tokens: string[] }> {
    const name = input.name.trim();
    if (!name) throw new Error("A name is required");
    const envelope = await encryptEntry(this.keys, {
      username: input.username,
      password: input.password,
      notes: input.notes,
      category: input.category,
      totp: input.totp,
    });
    const idx = await blindIndexes(this.keys, { name, website: input.website || input.url, username: input.username });
    const data: MutationData = {
      name,
      website: domainOf(input.website || input.url) || null,
      url: input.url.trim() || null,
      tags: input.tags,
      ...envelope,
      encryption_version: 3,
      name_hash: idx.name_hash,
      username_hash: idx.username_hash,
      domain_hash: idx.domain_hash ?? null,
      search_tokens: idx.search_tokens,
    };
    return { data, tokens: idx.search_tokens };
  }

  private local(id: string, data: MutationData, tokens: string[], createdAt: string, now: string): LocalEntry {
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
    };
  }

  async create(input: EntryInput): Promise<string> {
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    const { data, tokens } = await this.seal(input);
    await this.db.applyLocal(this.local(id, data, tokens, now, now), { userId: this.userId, action: "create", entryId: id, data, clientUpdatedAt: now });
    return id;
  }

  /** Each edit re-encrypts under a fresh item key and sends the whole envelope. */
  async update(id: string, input: EntryInput): Promise<void> {
    const prev = await this.db.entry(this.userId, id);
    if (!prev) throw new Error("This entry is no longer in the vault");
    const now = new Date().toISOString();
    const { data, tokens } = await this.seal(input);
    await this.db.applyLocal(this.local(id, data, tokens, prev.created_at, now), { userId: this.userId, action: "update", entryId: id, data, clientUpdatedAt: now });
  }

  async remove(id: string): Promise<void> {
    await this.db.applyLocal(null, { userId: this.userId, action: "delete", entryId: id, clientUpdatedAt: new Date().toISOString() });
  }

  async list(): Promise<LocalEntry[]> {
    return (await this.db.entries(this.userId)).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  async secrets(e: Pick<LocalEntry, "wrapped_item_key" | "encrypted_data">): Promise<EntrySecrets> {
    if (!e.wrapped_item_key || !e.encrypted_data) throw new DecryptionError();
    return decryptEntry(this.keys, { wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data });
  }

  /**
   * Encrypts placeholder entries (encryption_version -1, made by the server from discovery) on
   * first sight, as the spec intends: each becomes a V3 update with its username and an empty
   * password, queued through sync. One already queued is left to its queued change.
   */
  async sealPlaceholders(): Promise<number> {
    const queued = new Set((await this.db.pending(this.userId)).map((p) => p.entryId));
    const open = (await this.db.entries(this.userId)).filter((e) => e.encryption_version === PLACEHOLDER_VERSION && !queued.has(e.id));
    for (const e of open) {
      await this.update(e.id, { name: e.name, website: e.website ?? "", url: e.url ?? "", tags: e.tags, username: e.username ?? "", password: "", notes: "", category: "", totp: "" });
    }
    return open.length;
  }

  /**
   * Computes the blind-index tokens of entries that came from the server (sync does not carry
   * them). Entries this key cannot open are left unindexed; returns how many there are.
   */
  async ensureIndexed(): Promise<number> {
    await this.sealPlaceholders();
    let unreadable = 0;
    const stale = (await this.db.entries(this.userId)).filter((e) => e.search_tokens === null);
    const done: { id: string; wrapped_item_key: string | null; encrypted_data: string | null; tokens: string[] }[] = [];
    for (const e of stale) {
      let username = e.encryption_version === 3 ? null : "";
      if (username === null) {
        try {
          username = (await this.secrets(e)).username;
        } catch {
          unreadable++;
          continue;
        }
      }
      const idx = await blindIndexes(this.keys, { name: e.name, website: e.website ?? e.url ?? "", username });
      done.push({ id: e.id, wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data, tokens: idx.search_tokens });
    }
    if (done.length) await this.db.setTokens(this.userId, done);
    return unreadable;
  }

  /** Search by blind index: every hashed query word must be among the entry's hashed tokens. */
  async search(query: string): Promise<LocalEntry[]> {
    const all = await this.list();
    const wanted = await queryTokens(this.keys, query);
    if (wanted.length === 0) return all;
    return all.filter((e) => e.search_tokens !== null && wanted.every((t) => e.search_tokens!.includes(t)));
  }
}
