/**
 * Client-side attachment encryption (spec "Vault attachment", DECISIONS D8), Web Crypto only.
 *
 * Each file gets its own random AES-256-GCM key. Content, filename and MIME type are encrypted
 * under it, each with its own random 96-bit IV (NIST SP 800-38D recommends 96-bit IVs); the file
 * key is wrapped with the vault key (AES-256-GCM) under a fourth IV. The content travels as one
 * base64 blob: the 12-byte IV, then the ciphertext with its tag.
 */
import { fromBase64, toBase64 } from "../../src/kernel/base64";

export { fromBase64, toBase64 };

export type CipherPart = { iv: string; ciphertext: string };
export type ParentType = "password" | "note" | "item";

export type EncryptedAttachment = {
  encrypted_content: string;
  wrapped_file_key: CipherPart;
  encrypted_filename: CipherPart;
  encrypted_mime_type: CipherPart;
};

export type UploadBody = EncryptedAttachment & { parent_id: string; parent_type: ParentType };

export type DecryptedAttachment = {
  content: Uint8Array<ArrayBuffer>;
  filename: string;
  mimeType: string;
};

const IV_BYTES = 12;
const enc = new TextEncoder();
const dec = new TextDecoder();

const newIv = () => crypto.getRandomValues(new Uint8Array(IV_BYTES));

async function encryptPart(key: CryptoKey, plaintext: BufferSource): Promise<CipherPart> {
  const iv = newIv();
  const ct = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, plaintext as Uint8Array<ArrayBuffer>),
  );
  return { iv: toBase64(iv), ciphertext: toBase64(ct) };
}

async function decryptPart(key: CryptoKey, part: CipherPart): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(
    await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64(part.iv) },
      key,
      fromBase64(part.ciphertext),
    ),
  );
}

/** Encrypts a file for upload; `vaultKey` is the user's AES-GCM vault key (usages wrapKey/unwrapKey). */
export async function encryptAttachment(
  vaultKey: CryptoKey,
  file: { content: BufferSource; filename: string; mimeType: string },
): Promise<EncryptedAttachment> {
  const fileKey = (await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, [
    "encrypt",
    "decrypt",
  ])) as CryptoKey;
  const contentIv = newIv();
  const ct = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv: contentIv },
      fileKey,
      file.content as Uint8Array<ArrayBuffer>,
    ),
  );
  const blob = new Uint8Array(IV_BYTES + ct.length);
  blob.set(contentIv);
  blob.set(ct, IV_BYTES);
  const wrapIv = newIv();
  const wrapped = new Uint8Array(
    await crypto.subtle.wrapKey("raw", fileKey, vaultKey, { name: "AES-GCM", iv: wrapIv }),
  );
  return {
    encrypted_content: toBase64(blob),
    wrapped_file_key: { iv: toBase64(wrapIv), ciphertext: toBase64(wrapped) },
    encrypted_filename: await encryptPart(fileKey, enc.encode(file.filename)),
    encrypted_mime_type: await encryptPart(fileKey, enc.encode(file.mimeType)),
  };
}

export async function buildUploadBody(
  vaultKey: CryptoKey,
  parent: { id: string; type: ParentType },
  file: { content: BufferSource; filename: string; mimeType: string },
): Promise<UploadBody> {
  return {
    parent_id: parent.id,
    parent_type: parent.type,
    ...(await encryptAttachment(vaultKey, file)),
  };
}

function unwrapFileKey(vaultKey: CryptoKey, wrapped: CipherPart): Promise<CryptoKey> {
  return crypto.subtle.unwrapKey(
    "raw",
    fromBase64(wrapped.ciphertext),
    vaultKey,
    { name: "AES-GCM", iv: fromBase64(wrapped.iv) },
    { name: "AES-GCM", length: 256 },
    false,
    ["decrypt"],
  );
}

/** The filename and MIME type alone, from a listed attachment (no content needed). */
export async function decryptAttachmentInfo(
  vaultKey: CryptoKey,
  att: Omit<EncryptedAttachment, "encrypted_content">,
): Promise<{ filename: string; mimeType: string }> {
  const fileKey = await unwrapFileKey(vaultKey, att.wrapped_file_key);
  return {
    filename: dec.decode(await decryptPart(fileKey, att.encrypted_filename)),
    mimeType: dec.decode(await decryptPart(fileKey, att.encrypted_mime_type)),
  };
}

/** Unwraps the file key with the vault key, decrypts the content (IV = its first 12 bytes), then the filename and MIME type. */
export async function decryptAttachment(
  vaultKey: CryptoKey,
  att: EncryptedAttachment,
): Promise<DecryptedAttachment> {
  const fileKey = await unwrapFileKey(vaultKey, att.wrapped_file_key);
  const blob = fromBase64(att.encrypted_content);
  const content = new Uint8Array(
    await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: blob.subarray(0, IV_BYTES) },
      fileKey,
      blob.subarray(IV_BYTES),
    ),
  );
  return {
    content,
    filename: dec.decode(await decryptPart(fileKey, att.encrypted_filename)),
    mimeType: dec.decode(await decryptPart(fileKey, att.encrypted_mime_type)),
  };
}
