/**
 * Secure links made from the extension popup (docs/decisions/extension.md, "Extension: secure links from the
 * popup"), in the offscreen vault: an entry's fields are read and sealed here, under a key made
 * here, and only the ciphertext goes to the server (core/links/secure-links.ts, the web app's
 * module). The popup names an entry and the fields it wants by key; it never receives a value, and
 * nothing of this reaches a page.
 */
import type { ApiClient } from "../../core/api";
import type { EntrySecrets } from "../../core/crypto";
import {
  createLink,
  entryLinkFields,
  type CreateOptions,
  type EntryLinkField,
  type LinkPayload,
} from "../../core/links";
import { errorText } from "../../core/ui";
import type { LinkCreateReply, LinkEntriesReply, LinkFieldsReply, LinkSource } from "./messages";

/** What the unlocked vault lends this module: an entry's opened secrets by id, the vault key, the API. */
export type LinkVault = {
  entry(
    id: string,
  ): Promise<{ name: string; website?: string | null; secrets: EntrySecrets } | null>;
  /** The synced copy's entries, with their plaintext name and website only. */
  list(): Promise<{ id: string; name: string; website: string | null; sealed: boolean }[]>;
  vaultKey: CryptoKey;
  api: ApiClient;
  appOrigin: string;
};

/** The fields the entry could send, labels and default ticks only (no values), for the popup's form. */
export async function linkFields(vault: LinkVault | null, id: string): Promise<LinkFieldsReply> {
  if (!vault) return { locked: true };
  const e = await vault.entry(id);
  if (!e) return { locked: false, found: false };
  const fields = entryLinkFields(e, e.secrets).map(({ key, label, checked }) => ({
    key,
    label,
    checked,
  }));
  return { locked: false, found: true, name: e.name, username: e.secrets.username, fields };
}

/** Entries whose name or website holds the query (both plaintext in the copy), for the popup's "Find an entry". */
export async function linkEntries(
  vault: LinkVault | null,
  query: string,
): Promise<LinkEntriesReply> {
  if (!vault) return { locked: true };
  const q = String(query ?? "")
    .trim()
    .toLowerCase();
  const hits = (await vault.list()).filter(
    (e) =>
      e.sealed && (e.name.toLowerCase().includes(q) || (e.website ?? "").toLowerCase().includes(q)),
  );
  hits.sort((a, b) => a.name.localeCompare(b.name));
  return {
    locked: false,
    entries: hits.slice(0, 20).map(({ id, name, website }) => ({ id, name, website })),
  };
}

/** What the link carries: the free text as one field, or the entry's chosen fields in the form's order. */
async function payloadOf(vault: LinkVault, source: LinkSource): Promise<LinkPayload | string> {
  if (source.kind === "text") {
    const text = String(source.text ?? "");
    if (!text.trim()) return "Write the text to share.";
    return { type: "text", fields: [{ label: "Secret", value: text }] };
  }
  const e = await vault.entry(String(source.id));
  if (!e) return "This entry is not in the extension's copy of the vault.";
  const wanted = new Set<EntryLinkField["key"]>(Array.isArray(source.fields) ? source.fields : []);
  const chosen = entryLinkFields(e, e.secrets).filter((f) => wanted.has(f.key));
  if (!chosen.length) return "Choose at least one field.";
  return { type: "text", fields: chosen.map(({ label, value }) => ({ label, value })) };
}

/** Seals and uploads the link; the answer is the full address with its key, for the popup only. */
export async function createLinkFrom(
  vault: LinkVault | null,
  source: LinkSource,
  options: CreateOptions,
): Promise<LinkCreateReply> {
  if (!vault) return { ok: false, locked: true };
  const payload = await payloadOf(vault, source);
  if (typeof payload === "string") return { ok: false, error: payload };
  try {
    const { url } = await createLink(vault.api, payload, options, vault.vaultKey, vault.appOrigin);
    return { ok: true, url };
  } catch (e) {
    return { ok: false, error: errorText(e) };
  }
}
