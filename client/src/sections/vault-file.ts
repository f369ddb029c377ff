/**
 * The vault's own export file (version 2): every entry opened here and written, whole, into one
 * JSON document that is then encrypted with a password the person chooses (PBKDF2-SHA256 600,000
 * and AES-256-CBC with HMAC-SHA256, importers/bitwarden-crypto.ts). Only the format header is in
 * the clear (format, version, what the file holds, the key derivation's salt and cost, a check
 * value and the ciphertext): names, websites, URLs, tags, folders and notes are all inside.
 *
 * The file's key is its password, not the vault key, so it opens in this account, another account
 * of the same person, or a new one. Each entry is sealed again under the importing account's keys
 * and a fresh id (an envelope is bound to its id and owner), so nothing is skipped for an id in use.
 *
 * Version 1 files (the server's document, GET /api/passwords/export: envelopes under the vault key
 * with names and addresses in the clear) are still read: their entries open only in the account
 * that wrote them, and an entry that does not open is shown as not imported, with the reason.
 */
import type { ExportDocument, ImportEntry } from "../../../core/api";
import { openEntry, placeOf, type EntrySecrets, type VaultKeys } from "../../../core/crypto";
import type { LocalEntry } from "../../../core/store";
import { sealInput } from "../../../core/vault";
import type { ImportedCredential } from "../importers";
import { protectExport } from "../importers/bitwarden-crypto";
import type { AppContext } from "../shell/context";
import type { Row } from "./import-preview";
import type { VaultFileItem } from "./vault-file-item";

export type { VaultFileItem };

export const VAULT_FILE_FORMAT = "credential-vault-export";
export const VAULT_FILE_VERSION = 2;

/** The encrypted part of the file. */
export type VaultFileBody = {
  format: typeof VAULT_FILE_FORMAT;
  version: typeof VAULT_FILE_VERSION;
  exported_at: string;
  items: VaultFileItem[];
};

/** Every entry this device opens, and how many it could not. */
export async function vaultItems(
  app: AppContext,
): Promise<{ items: VaultFileItem[]; unreadable: number }> {
  const items: VaultFileItem[] = [];
  let unreadable = 0;
  for (const e of await app.vault.list()) {
    try {
      items.push({
        id: e.id,
        name: e.name,
        website: e.website ?? null,
        url: e.url ?? null,
        tags: e.tags ?? [],
        created_at: e.created_at,
        updated_at: e.updated_at,
        secrets: await app.vault.secrets(e),
      });
    } catch {
      unreadable++;
    }
  }
  return { items, unreadable };
}

/** The file: the header in the clear, the body encrypted with `password`. */
export async function vaultFile(items: VaultFileItem[], password: string, iterations = 600_000) {
  const body: VaultFileBody = {
    format: VAULT_FILE_FORMAT,
    version: VAULT_FILE_VERSION,
    exported_at: new Date().toISOString(),
    items,
  };
  const sealed = await protectExport(JSON.stringify(body), password, iterations, "vault");
  return { format: VAULT_FILE_FORMAT, version: VAULT_FILE_VERSION, ...sealed };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The opened body of a version 2 file. */
export const isVaultFileBody = (v: unknown): v is VaultFileBody =>
  isObject(v) &&
  v.format === VAULT_FILE_FORMAT &&
  v.version === VAULT_FILE_VERSION &&
  Array.isArray(v.items);

/** A version 1 file: the server's document. */
export const isServerExport = (v: unknown): v is ExportDocument =>
  isObject(v) && v.format === VAULT_FILE_FORMAT && Array.isArray(v.entries);

/** An item as the preview shows it (and as the importers' credentials look). */
function credentialOf(item: VaultFileItem): ImportedCredential {
  const s = item.secrets;
  return {
    name: item.name,
    url: item.url,
    website: item.website,
    username: s.username ?? "",
    password: s.password ?? "",
    notes: s.notes ?? "",
    totp: s.totp || null,
    tags: item.tags,
    folder: s.folder || null,
    favorite: s.favorite === true,
    kind: s.kind ?? "login",
    urls: s.urls ?? [],
    fields: s.fields ?? [],
    ...(s.card ? { card: s.card } : {}),
    ...(s.identity ? { identity: s.identity } : {}),
    history: s.password_history ?? [],
    ...(s.passkeys?.length ? { passkeys: s.passkeys } : {}),
    changes: [],
  };
}

/** Why an item of a file cannot be imported, or null. */
function itemProblem(item: VaultFileItem): string | null {
  if (typeof item.name !== "string" || !item.name.trim()) return "no name";
  if (item.name.length > 500) return "name longer than 500 characters";
  if ((item.url ?? "").length > 2048) return "URL longer than 2048 characters";
  if (!isObject(item.secrets)) return "no secrets";
  return null;
}

/**
 * A key for "the same entry" across accounts, from what the list shows in the clear on this
 * device: the name and the website. The same person's second account has other ids, so ids alone
 * would not find a copy there.
 */
const sameKey = (name: string, website: string | null | undefined) =>
  `${name.trim().toLowerCase()}\n${(website ?? "").toLowerCase()}`;

/**
 * The preview's rows for a file's items: each one imported under a fresh id, and one that is
 * already in this vault (the same id, or the same name and website) says so and that it will be
 * imported as a copy, so the count the preview gives is what the import does.
 */
export function rowsOfItems(items: VaultFileItem[], vault: LocalEntry[]): Row[] {
  const ids = new Set(vault.map((e) => e.id));
  const keys = new Set(vault.map((e) => sameKey(e.name, e.website)));
  return items.map((item) => {
    const problem = itemProblem(item);
    const row: Row = {
      credential: problem
        ? { ...credentialOf({ ...item, secrets: {} as EntrySecrets }), name: String(item.name) }
        : credentialOf(item),
      problem,
      own: item,
    };
    if (!problem && ids.has(item.id))
      row.duplicate = "this very entry is already in this vault: imported as a copy";
    else if (!problem && keys.has(sameKey(item.name, item.website)))
      row.duplicate =
        "an entry with this name and website is already in this vault: imported as a copy";
    return row;
  });
}

/**
 * The items of a version 1 file that this account opens; the others as rows that say why not.
 * The envelope is bound to the account and id that sealed it, so another account cannot open it.
 */
export async function itemsOfServerExport(
  keys: VaultKeys,
  userId: string,
  doc: ExportDocument,
): Promise<{ items: VaultFileItem[]; closed: Row[] }> {
  const items: VaultFileItem[] = [];
  const closed: Row[] = [];
  for (const e of doc.entries) {
    const meta = {
      id: e.id ?? "",
      name: e.name ?? "Imported entry",
      website: e.website ?? null,
      url: e.url ?? null,
      tags: e.tags ?? [],
    };
    try {
      if (!e.id) throw new Error("no id");
      const opened = await openEntry(
        keys,
        placeOf(userId, meta),
        { wrapped_item_key: e.wrapped_item_key, encrypted_data: e.encrypted_data },
        { allowLegacy: true },
      );
      items.push({ ...meta, secrets: opened.secrets });
    } catch {
      const [row] = rowsOfItems([{ ...meta, secrets: {} as EntrySecrets }], []);
      closed.push({
        ...row,
        own: undefined,
        problem:
          "sealed with another account's vault key (an export of version 1 opens only in the account that wrote it; export that account again)",
      });
    }
  }
  return { items, closed };
}

/** An item sealed under this account's keys and a fresh id (its envelope is bound to the id). */
export async function sealItem(
  keys: VaultKeys,
  userId: string,
  item: VaultFileItem,
): Promise<ImportEntry> {
  const id = crypto.randomUUID();
  const s = item.secrets;
  const { data } = await sealInput(keys, userId, id, {
    ...s,
    username: s.username ?? "",
    password: s.password ?? "",
    notes: s.notes ?? "",
    category: s.category ?? "",
    totp: s.totp ?? "",
    name: item.name,
    website: item.website ?? "",
    url: item.url ?? "",
    tags: item.tags ?? [],
  });
  return {
    ...data,
    id,
    website: data.website ?? null,
    url: data.url ?? null,
    tags: data.tags ?? [],
    domain_hash: data.domain_hash ?? null,
    encryption_version: 3,
  };
}
