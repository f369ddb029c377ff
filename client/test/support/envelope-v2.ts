/**
 * A version-2 envelope (docs/crypto.md, "Entries: the bound envelope (version 3)", which keeps the version-2 layout), as clients sealed before the scheme was bound:
 * written here from the documented layout, not with envelope.ts (which seals version 3 only), so
 * the tests hold the reader to the format that is stored in vaults today.
 */
import {
  keyIterations,
  keyVersion,
  serializeSecrets,
  type EntrySecrets,
  type Envelope,
  type VaultKeys,
} from "../../../core/crypto/crypto";
import type { Place } from "../../../core/crypto/envelope";
import { toBase64 } from "../../../src/kernel/base64";
import { concatBytes as join } from "../../../src/kernel/bytes";

const MAGIC_V2 = [0x63, 0x76, 0x32, 0x3a];
const enc = new TextEncoder();
const ad = (label: string, p: Place) =>
  enc.encode(JSON.stringify([label, 2, p.userId, p.entryId, p.host]));

export async function sealEntryV2(
  keys: VaultKeys,
  place: Place,
  secrets: EntrySecrets,
): Promise<Envelope> {
  const itemKey = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, [
    "encrypt",
    "decrypt",
  ]);
  const dataIv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv: dataIv, additionalData: ad("credential-vault/entry-data", place) },
    itemKey,
    enc.encode(serializeSecrets(secrets)),
  );
  const header = new Uint8Array(9);
  const view = new DataView(header.buffer);
  view.setUint32(0, keyVersion(keys));
  view.setUint8(4, 1);
  view.setUint32(5, keyIterations(keys));
  const wrapIv = crypto.getRandomValues(new Uint8Array(12));
  const wrapped = await crypto.subtle.wrapKey("raw", itemKey, keys.vaultKey, {
    name: "AES-GCM",
    iv: wrapIv,
    additionalData: join(ad("credential-vault/item-key", place), header),
  });
  return {
    wrapped_item_key: toBase64(
      join(new Uint8Array(MAGIC_V2), header, wrapIv, new Uint8Array(wrapped)),
    ),
    encrypted_data: toBase64(join(new Uint8Array(MAGIC_V2), dataIv, new Uint8Array(data))),
  };
}
