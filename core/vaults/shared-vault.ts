/**
 * What a member's device does with a shared vault (docs/decisions/client.md, "Client: shared
 * vaults in the web app"): opens its own copy of the key, reads and writes entries sealed in the vault's place,
 * creates a vault, wraps the key for members whose sharing key the caller pinned, and rotates the
 * key after a member left. The server assigns vault and entry ids, while every ciphertext is bound
 * to them: a new vault's first copy and name, and a new entry's envelope, are written bound to a
 * provisional id and at once written again bound to the id the server gave.
 */
import { ApiError } from "../api";
import { blindIndexes, type EntrySecrets, type VaultKeys } from "../crypto";
import {
  newVaultKey,
  openMemberCopy,
  openVaultEntry,
  openVaultName,
  sealVaultEntry,
  sealVaultName,
  sharedVaultKeys,
  wrapVaultKeyForMember,
} from "./vault-crypto";
import type { SharedVault, StagedEntry, VaultsApi } from "./vaults-api";

/** Bound to no vault and no entry: ids the server never gives. */
const PROVISIONAL = "";
const STAGE_BATCH = 100;

export type OpenedVault = {
  vault: SharedVault;
  name: string;
  vaultKey: CryptoKey;
  keys: VaultKeys;
};

export type PublicKey = { x: string; y: string };

/** The caller's copy of the vault's current key, opened; null while nobody wrapped it for them. */
export async function openVault(
  api: VaultsApi,
  me: { userId: string; privateKey: CryptoKey },
  vault: SharedVault,
): Promise<OpenedVault | null> {
  if (vault.member_state !== "wrapped") return null;
  const copy = await api.key(vault.id);
  // The copy must be of the version the vault list names: an older one served as current fails.
  if (copy.key_version !== vault.key_version) return null;
  const vaultKey = await openMemberCopy(me.privateKey, copy.wrapped_key, {
    vaultId: vault.id,
    keyVersion: copy.key_version,
    memberUserId: me.userId,
  });
  return {
    vault,
    vaultKey,
    keys: await sharedVaultKeys(vaultKey, copy.key_version),
    name: await openVaultName(vaultKey, vault.id, vault.sealed_name),
  };
}

/** A new vault named `name`, its key version 1 wrapped for the creator's own sharing key. */
export async function createVault(
  api: VaultsApi,
  me: { userId: string; publicKey: PublicKey },
  name: string,
): Promise<SharedVault> {
  const key = await newVaultKey();
  const provisional = { vaultId: PROVISIONAL, keyVersion: 1, memberUserId: me.userId };
  const { vault } = await api.create(
    await sealVaultName(key, PROVISIONAL, name),
    await wrapVaultKeyForMember(key, me.publicKey, provisional),
  );
  const bound = { vaultId: vault.id, keyVersion: 1, memberUserId: me.userId };
  await api.wrap(vault.id, me.userId, 1, await wrapVaultKeyForMember(key, me.publicKey, bound));
  return (await api.rename(vault.id, await sealVaultName(key, vault.id, name))).vault;
}

export async function renameVault(api: VaultsApi, v: OpenedVault, name: string) {
  return (await api.rename(v.vault.id, await sealVaultName(v.vaultKey, v.vault.id, name))).vault;
}

/** The key of the vault's current version wrapped for a member's pinned sharing key. */
export async function wrapForMember(
  api: VaultsApi,
  v: OpenedVault,
  memberUserId: string,
  publicKey: PublicKey,
) {
  const keyVersion = v.keys.version ?? 1;
  const wrapped = await wrapVaultKeyForMember(v.vaultKey, publicKey, {
    vaultId: v.vault.id,
    keyVersion,
    memberUserId,
  });
  return api.wrap(v.vault.id, memberUserId, keyVersion, wrapped);
}

export type VaultEntry = {
  id: string;
  name: string;
  website: string | null;
  url: string | null;
  updated_at: string;
  /** Null when the envelope did not open in its place; `error` then says why. */
  secrets: EntrySecrets | null;
  error?: string;
};

type Row = {
  id: string;
  name?: string;
  website?: string | null;
  url?: string | null;
  updated_at?: string;
  wrapped_item_key?: string | null;
  encrypted_data?: string | null;
  _deleted: boolean;
};

async function openRow(v: { vaultId: string; keys: VaultKeys }, r: Row): Promise<VaultEntry> {
  const base = {
    id: r.id,
    name: r.name ?? "",
    website: r.website ?? null,
    url: r.url ?? null,
    updated_at: r.updated_at ?? "",
  };
  try {
    if (!r.wrapped_item_key || !r.encrypted_data) throw new Error("This entry has no sealed data.");
    const env = { wrapped_item_key: r.wrapped_item_key, encrypted_data: r.encrypted_data };
    return { ...base, secrets: await openVaultEntry(v.keys, v.vaultId, { ...base, ...env }) };
  } catch (err) {
    return { ...base, secrets: null, error: (err as Error).message };
  }
}

/** The vault's live entries, each opened in its place, by name. */
export async function vaultEntries(api: VaultsApi, v: OpenedVault): Promise<VaultEntry[]> {
  const rows = (await api.pullAll(v.vault.id)) as Row[];
  const live = rows.filter((r) => !r._deleted);
  const opened = await Promise.all(
    live.map((r) => openRow({ vaultId: v.vault.id, keys: v.keys }, r)),
  );
  return opened.sort((a, b) => a.name.localeCompare(b.name));
}

export type VaultEntryInput = {
  name: string;
  website: string | null;
  url: string | null;
  secrets: EntrySecrets;
};

async function entryBody(keys: VaultKeys, vaultId: string, id: string, input: VaultEntryInput) {
  const ref = { id, website: input.website, url: input.url };
  const idx = await blindIndexes(keys, {
    name: input.name,
    website: input.website || input.url || "",
    username: input.secrets.username,
  });
  return {
    name: input.name,
    ...(input.website ? { website: input.website } : {}),
    ...(input.url ? { url: input.url } : {}),
    ...(await sealVaultEntry(keys, vaultId, ref, input.secrets)),
    name_hash: idx.name_hash,
    username_hash: idx.username_hash,
    ...(idx.domain_hash ? { domain_hash: idx.domain_hash } : {}),
    search_tokens: idx.search_tokens,
    key_version: keys.version ?? 1,
  };
}

/** Adds an entry (editor or above); returns its id. */
export async function addVaultEntry(
  api: VaultsApi,
  v: OpenedVault,
  input: VaultEntryInput,
): Promise<string> {
  const id = v.vault.id;
  const made = await api.addEntry(id, await entryBody(v.keys, id, PROVISIONAL, input));
  await api.putEntry(id, made.id, await entryBody(v.keys, id, made.id, input));
  return made.id;
}

export async function updateVaultEntry(
  api: VaultsApi,
  v: OpenedVault,
  entryId: string,
  input: VaultEntryInput,
) {
  // The server's change body cannot clear a website or URL: a cleared one stays as it was.
  return api.putEntry(v.vault.id, entryId, await entryBody(v.keys, v.vault.id, entryId, input));
}

export type RotationResult = {
  keyVersion: number;
  /** The entries the removed person could read (under the old key). */
  exposed: { id: string; name: string; host: string }[];
};

/**
 * A new key version for the vault after a member left: every entry re-sealed under a new item
 * key and the new vault key, the new key wrapped for every remaining member (the caller first),
 * then committed. Entries changed meanwhile come back stale or remaining and are re-sealed.
 */
export async function rotateVault(
  api: VaultsApi,
  v: OpenedVault,
  me: { userId: string; publicKey: PublicKey },
  remaining: { userId: string; publicKey: PublicKey }[],
): Promise<RotationResult> {
  const id = v.vault.id;
  const from = v.keys.version ?? 1;
  const { rotation } = await api.beginRotation(id, from);
  const to = rotation.rotating_to ?? from + 1;
  const newKey = await newVaultKey();
  const next = await sharedVaultKeys(newKey, to);
  let exposed: RotationResult["exposed"] = [];
  const stageAll = async (only: Set<string> | null) => {
    const rows = ((await api.pullAll(id)) as Row[]).filter((r) => !r._deleted);
    const opened = await Promise.all(rows.map((r) => openRow({ vaultId: id, keys: v.keys }, r)));
    if (!only)
      exposed = opened
        .map((e) => ({ id: e.id, name: e.name, host: e.website || e.url || "" }))
        .sort((a, b) => a.name.localeCompare(b.name));
    const todo: StagedEntry[] = [];
    for (const e of opened) {
      if (only && !only.has(e.id)) continue;
      if (!e.secrets) throw new Error(`Entry "${e.name}" cannot be opened: ${e.error}`);
      const env = await sealVaultEntry(next, id, e, e.secrets);
      todo.push({ id: e.id, updated_at: e.updated_at, ...env });
    }
    const stale: string[] = [];
    for (let i = 0; i < todo.length; i += STAGE_BATCH)
      stale.push(...(await api.stage(id, to, todo.slice(i, i + STAGE_BATCH))).stale);
    return stale;
  };
  let again = new Set(await stageAll(null));
  for (let round = 0; again.size && round < 3; round++) again = new Set(await stageAll(again));
  const others = remaining.filter((m) => m.userId !== me.userId);
  const wraps = [];
  for (const m of [{ userId: me.userId, publicKey: me.publicKey }, ...others])
    wraps.push({
      user_id: m.userId,
      wrapped_key: await wrapVaultKeyForMember(newKey, m.publicKey, {
        vaultId: id,
        keyVersion: to,
        memberUserId: m.userId,
      }),
    });
  for (let i = 0; i < wraps.length; i += STAGE_BATCH)
    await api.rotationKeys(id, to, wraps.slice(i, i + STAGE_BATCH));
  // A commit refused for entries changed meanwhile names them: they are re-sealed and it is asked again.
  const commit = async () => {
    try {
      return { done: await api.commit(id, to), remaining: [] as string[] };
    } catch (e) {
      const remaining = (e as { body?: { remaining?: unknown } }).body?.remaining;
      if (!(e instanceof ApiError) || e.status !== 409 || !Array.isArray(remaining)) throw e;
      return { done: null, remaining: remaining as string[] };
    }
  };
  let { done, remaining: left } = await commit();
  for (let round = 0; !done && left.length && round < 3; round++) {
    await stageAll(new Set(left));
    ({ done, remaining: left } = await commit());
  }
  if (!done) throw new Error("Entries kept changing during the key change; try again.");
  if (done.rotation.key_version !== to)
    throw new Error("The new key version was not committed; open the vault again to resume.");
  await api.rename(id, await sealVaultName(newKey, id, v.name));
  return { keyVersion: to, exposed };
}
