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
import type { ExportDocument } from "../../../core/api";
import { openEntry, placeOf, type EntrySecrets, type VaultKeys } from "../../../core/crypto";
import {
  credentialOf,
  isServerExport,
  isVaultFileBody,
  itemProblem,
  sealedVaultFile,
  sealItem,
  VAULT_FILE_FORMAT,
  VAULT_FILE_VERSION,
  type VaultFileBody,
  type VaultFileItem,
  vaultFileItem,
} from "../../../core/importers";
import type { LocalEntry } from "../../../core/store";
import type { AppContext } from "../shell/context";
import type { Row } from "./import-preview";

// The file's body, its recognising and the sealing of its items are the core's (core/importers),
// shared with the command line; this page adds the opening of the vault and the file password.
export {
  isServerExport,
  isVaultFileBody,
  sealItem,
  VAULT_FILE_FORMAT,
  VAULT_FILE_VERSION,
  type VaultFileBody,
  type VaultFileItem,
};

/** Every entry this device opens, and how many it could not. */
export async function vaultItems(
  app: AppContext,
): Promise<{ items: VaultFileItem[]; unreadable: number }> {
  const items: VaultFileItem[] = [];
  let unreadable = 0;
  for (const e of await app.vault.list()) {
    try {
      items.push(vaultFileItem(e, await app.vault.secrets(e)));
    } catch {
      unreadable++;
    }
  }
  return { items, unreadable };
}

/** The file: the header in the clear, the body encrypted with `password` (the core's, as the command line writes it). */
export const vaultFile = sealedVaultFile;

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
