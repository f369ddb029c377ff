/**
 * The vault's own export file (version 2), the part every app shares: the body (every entry opened
 * and written whole), how it is recognised when read back, the plain CSV for leaving, and the
 * sealing of an item under the importing account's keys. Both apps write it encrypted with a
 * password the person chooses (sealedVaultFile); the command line can also write the body as it is
 * (`vault export --format json`, docs/cli.md), for leaving. Both read every form back.
 *
 * Each item is sealed again under the importing account's keys and a fresh id (an envelope is
 * bound to its id and owner), so it opens in this account, another of the same person, or a new one.
 */
import type { ExportDocument, ImportEntry } from "../api";
import type { EntrySecrets, VaultKeys } from "../crypto";
import { sealInput } from "../vault";
import { protectExport } from "./bitwarden-crypto";
import type { ImportedCredential } from "./model";

/** One entry of the file: what the vault shows of it and everything its envelope held. */
export type VaultFileItem = {
  id: string;
  name: string;
  website: string | null;
  url: string | null;
  tags: string[];
  created_at?: string;
  updated_at?: string;
  secrets: EntrySecrets;
};

/** One entry as the vault file holds it: what the server lists of it, and its opened secrets. */
export const vaultFileItem = (
  e: Pick<VaultFileItem, "id" | "name" | "created_at" | "updated_at"> & {
    website?: string | null;
    url?: string | null;
    tags?: string[] | null;
  },
  secrets: EntrySecrets,
): VaultFileItem => ({
  id: e.id,
  name: e.name,
  website: e.website ?? null,
  url: e.url ?? null,
  tags: e.tags ?? [],
  created_at: e.created_at,
  updated_at: e.updated_at,
  secrets,
});

export const VAULT_FILE_FORMAT = "credential-vault-export";
export const VAULT_FILE_VERSION = 2;

/** The file's body (the part the web app encrypts). */
export type VaultFileBody = {
  format: typeof VAULT_FILE_FORMAT;
  version: typeof VAULT_FILE_VERSION;
  exported_at: string;
  items: VaultFileItem[];
};

export const vaultFileBody = (items: VaultFileItem[]): VaultFileBody => ({
  format: VAULT_FILE_FORMAT,
  version: VAULT_FILE_VERSION,
  exported_at: new Date().toISOString(),
  items,
});

/** The shortest file password either app accepts: the file travels, and is guessed offline. */
export const MIN_FILE_PASSWORD = 10;

/**
 * The file as it is written: the header in the clear (format, version, what it holds, the key
 * derivation's salt and cost, a check value) and the whole body, every name, address, tag and
 * note with the secrets, encrypted with `password` (protectExport). Nothing of an entry, not even
 * its id, is outside the ciphertext.
 */
export async function sealedVaultFile(
  items: VaultFileItem[],
  password: string,
  iterations = 600_000,
) {
  const sealed = await protectExport(
    JSON.stringify(vaultFileBody(items)),
    password,
    iterations,
    "vault",
  );
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

/** An item as a preview shows it (and as the importers' credentials look). */
export function credentialOf(item: VaultFileItem): ImportedCredential {
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
export function itemProblem(item: VaultFileItem): string | null {
  if (typeof item.name !== "string" || !item.name.trim()) return "no name";
  if (item.name.length > 500) return "name longer than 500 characters";
  if ((item.url ?? "").length > 2048) return "URL longer than 2048 characters";
  if (!isObject(item.secrets)) return "no secrets";
  return null;
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
  return importEntry(id, data);
}

/** A sealed entry as the import route takes it: under its own id, its absent parts null. */
export function importEntry(
  id: string,
  data: Awaited<ReturnType<typeof sealInput>>["data"],
): ImportEntry {
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

/** RFC 4180 quoting: every value quoted, quotes doubled, line breaks kept inside the quotes. */
const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;

/** The columns: the generic CSV the importers (and most managers) read first, then the rest. */
export const PLAIN_COLUMNS = [
  "name",
  "url",
  "username",
  "password",
  "notes",
  "totp",
  "tags",
  "folder",
  "favorite",
  "kind",
  "other_urls",
  "fields",
] as const;

/** Custom fields and card or identity details, one "label: value" a line. */
function detailLines(s: EntrySecrets): string {
  const details = [
    ...(s.fields ?? []).map((f) => [f.name, f.value] as const),
    ...Object.entries(s.card ?? {}).map(([k, v]) => [`card.${k}`, String(v ?? "")] as const),
    ...Object.entries(s.identity ?? {}).map(
      ([k, v]) => [`identity.${k}`, String(v ?? "")] as const,
    ),
  ];
  return details.map(([k, v]) => `${k}: ${v}`).join("\n");
}

/** The vault as plain CSV, one entry a row. */
export function plainCsv(items: VaultFileItem[]): string {
  const rows = items.map((i) => {
    const s = i.secrets;
    return [
      i.name,
      i.url ?? i.website ?? "",
      s.username ?? "",
      s.password ?? "",
      s.notes ?? "",
      s.totp ?? "",
      (i.tags ?? []).join(";"),
      s.folder ?? "",
      s.favorite ? "1" : "",
      s.kind ?? "login",
      (s.urls ?? []).map((u) => u.url).join(" "),
      detailLines(s),
    ]
      .map(cell)
      .join(",");
  });
  return `${[PLAIN_COLUMNS.join(","), ...rows].join("\r\n")}\r\n`;
}
