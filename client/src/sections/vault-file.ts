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

/** JSON with its keys sorted at every level: two entries compare whatever order their parts were written in. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(",")}]`
    : v && typeof v === "object"
      ? `{${Object.keys(v)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(",")}}`
      : JSON.stringify(v);

/** What an entry is, for "identical": everything but its id, its dates and when its password changed. */
const content = (e: Pick<VaultFileItem, "name" | "website" | "url" | "tags" | "secrets">) => {
  const { password_changed_at: _, ...secrets } = e.secrets;
  return canonical({
    name: e.name,
    website: e.website ?? null,
    url: e.url ?? null,
    tags: e.tags ?? [],
    secrets,
  });
};

export const DUPLICATE = {
  identical: "already in this vault, identical: imported as a copy",
  changed: "this entry is in this vault, changed since the export: imported as a copy",
  /** The same id, but this device cannot open the entry here to compare. */
  same: "this very entry is already in this vault: imported as a copy",
  lookalike: "an entry with this name and website is already in this vault: imported as a copy",
} as const;

/**
 * The preview's rows for a file's items. Every item is imported under a fresh id, as Bitwarden
 * imports a file twice: an item already in this vault (the same id, or the same name and website)
 * is still imported, as a copy, and its row says so and whether the entry here is identical, so the
 * count the preview gives is what the import does and nothing is skipped unseen. `secretsOf` opens
 * an entry of this vault (to tell "identical"); one that does not open is compared by id and name only.
 */
export async function rowsOfItems(
  items: VaultFileItem[],
  vault: LocalEntry[],
  secretsOf: (e: LocalEntry) => Promise<EntrySecrets> = () => Promise.reject(new Error("closed")),
): Promise<Row[]> {
  const byId = new Map(vault.map((e) => [e.id, e]));
  const byKey = new Map<string, LocalEntry[]>();
  for (const e of vault) {
    const k = sameKey(e.name, e.website);
    byKey.set(k, [...(byKey.get(k) ?? []), e]);
  }
  const opened = new Map<string, Promise<string | null>>();
  const contentOf = (e: LocalEntry) => {
    if (!opened.has(e.id))
      opened.set(
        e.id,
        secretsOf(e).then(
          (secrets) => content(vaultFileItem(e, secrets)),
          () => null,
        ),
      );
    return opened.get(e.id)!;
  };
  return Promise.all(
    items.map(async (item): Promise<Row> => {
      const problem = itemProblem(item);
      const row: Row = {
        credential: problem
          ? { ...credentialOf({ ...item, secrets: {} as EntrySecrets }), name: String(item.name) }
          : credentialOf(item),
        problem,
        own: item,
      };
      if (problem) return row;
      const same = byId.get(item.id);
      const alike = byKey.get(sameKey(item.name, item.website)) ?? [];
      const candidates = same ? [same, ...alike] : alike;
      if (!candidates.length) return row;
      const mine = content(item);
      const seen = await Promise.all(candidates.map(contentOf));
      row.duplicate = seen.includes(mine)
        ? DUPLICATE.identical
        : !same
          ? DUPLICATE.lookalike
          : seen[0] === null
            ? DUPLICATE.same
            : DUPLICATE.changed;
      return row;
    }),
  );
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
      const [row] = await rowsOfItems([{ ...meta, secrets: {} as EntrySecrets }], []);
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
