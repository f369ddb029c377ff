/**
 * What an import does to one credential before it is sent: the problem a preview row shows, the
 * sealing under an id chosen here (the envelope is bound to it), and the recognising of the JSON
 * documents whose own shape says what they are (this vault's export, a CXF document). Shared by the
 * web app's import page and the command line's `vault import`.
 */
import type { ImportEntry } from "../api";
import type { VaultKeys } from "../crypto";
import { sealInput } from "../vault";
import { isCxf, type StoredPasskey } from "../passkeys";
import type { ImportedCredential } from "./model";
import { secretPayload } from "./read";
import { importEntry, isServerExport, isVaultFileBody } from "./vault-file";

export function problemOf(c: ImportedCredential, passkeys = 0): string | null {
  if (passkeys && c.name.trim() && c.name.length <= 500) return null;
  if (!c.name.trim()) return "no name";
  if (c.name.length > 500) return "name longer than 500 characters";
  if ((c.url ?? "").length > 2048) return "URL longer than 2048 characters";
  return null;
}

/** Sealed under an id chosen here, which the import keeps: the envelope is bound to it. */
export async function sealCredential(
  keys: VaultKeys,
  userId: string,
  c: ImportedCredential,
  passkeys?: StoredPasskey[],
): Promise<ImportEntry> {
  const s = secretPayload(c);
  const id = crypto.randomUUID();
  const { data } = await sealInput(keys, userId, id, {
    name: c.name,
    website: c.website ?? "",
    url: c.url ?? "",
    tags: c.tags,
    username: s.username,
    password: s.password,
    notes: s.notes,
    category: c.folder ?? "",
    totp: s.totp ?? "",
    // The other manager's folder and favourite mark become this vault's (sealed like the rest).
    folder: c.folder ?? "",
    favorite: c.favorite === true,
    ...(passkeys?.length ? { passkeys } : {}),
    ...(s.kind ? { kind: s.kind } : {}),
    ...(s.urls ? { urls: s.urls } : {}),
    ...(s.fields ? { fields: s.fields } : {}),
    ...(s.card ? { card: s.card } : {}),
    ...(s.identity ? { identity: s.identity } : {}),
    ...(s.password_history ? { password_history: s.password_history } : {}),
  });
  return importEntry(id, data);
}

/** A JSON object of the shape `is` recognises, or null. */
function readJsonDoc<T>(text: string, is: (v: unknown) => boolean): T | null {
  if (!/^\s*\{/.test(text)) return null;
  try {
    const doc: unknown = JSON.parse(text);
    return is(doc) ? (doc as T) : null;
  } catch {
    return null;
  }
}
/** This vault's own export, opened: version 2 (every entry whole) or the server's version 1. */
export const readOwnExport = (text: string) =>
  readJsonDoc<unknown>(text, (v) => isVaultFileBody(v) || isServerExport(v));
/** A FIDO Credential Exchange Format document (logins and passkeys). */
export const readCxf = (text: string) => readJsonDoc<object>(text, isCxf);
