import { z } from "zod";
import { NextCursor, PageQuery } from "../../kernel/pagination";

/** Spec Limits: 25 MB per file, 35,000,000 base64 characters per payload. */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
export const MAX_CONTENT_CHARS = 35_000_000;
export const IV_BYTES = 12;
export const GCM_TAG_BYTES = 16;
/** The stored content is IV ‖ ciphertext ‖ tag, so a 25 MB file may take this many decoded bytes. */
export const MAX_CONTENT_BYTES = MAX_FILE_BYTES + IV_BYTES + GCM_TAG_BYTES;
/** A 256-bit file key wrapped with AES-256-GCM: 32 bytes of ciphertext and a 16-byte tag. */
export const WRAPPED_KEY_BYTES = 32 + GCM_TAG_BYTES;
/** Upload body cap (DECISIONS D14). */
export const UPLOAD_BODY_LIMIT = 36 * 1024 * 1024;

const STRICT_B64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded length of canonical base64, or -1 when the string is not canonical standard base64. */
export function decodedLength(b64: string): number {
  if (b64.length % 4 !== 0 || !STRICT_B64.test(b64)) return -1;
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return (b64.length / 4) * 3 - pad;
}

const b64Bytes = (min: number, max: number, what: string) =>
  z
    .string()
    .max(Math.ceil(max / 3) * 4, `${what} is too long`)
    .superRefine((v, ctx) => {
      const n = decodedLength(v);
      if (n < 0) ctx.addIssue({ code: "custom", message: "must be standard base64 with padding" });
      else if (n < min || n > max)
        ctx.addIssue({
          code: "custom",
          message:
            min === max ? `must decode to ${min} bytes` : `must decode to ${min} to ${max} bytes`,
        });
    });

const ivPart = b64Bytes(IV_BYTES, IV_BYTES, "iv");
const textCipher = z.object({
  iv: ivPart,
  ciphertext: b64Bytes(GCM_TAG_BYTES + 1, 1024, "ciphertext"),
});

export const PARENT_TYPES = ["password", "note", "item"] as const;
export type ParentType = (typeof PARENT_TYPES)[number];

/** IV ‖ AES-GCM ciphertext as canonical base64, within the size limit (`tooLarge` says which). */
export const sealedBase64 = (tooLarge: string) =>
  z
    .string()
    .max(MAX_CONTENT_CHARS, `base64 payload is limited to ${MAX_CONTENT_CHARS} characters`)
    .superRefine((v, ctx) => {
      const n = decodedLength(v);
      if (n < 0) ctx.addIssue({ code: "custom", message: "must be standard base64 with padding" });
      else if (n < IV_BYTES + GCM_TAG_BYTES)
        ctx.addIssue({
          code: "custom",
          message: "must start with the 12-byte IV followed by AES-GCM ciphertext",
        });
      else if (n > MAX_CONTENT_BYTES) ctx.addIssue({ code: "custom", message: tooLarge });
    });

export const UploadBody = z.object({
  parent_id: z.string().min(1).max(128),
  parent_type: z.enum(PARENT_TYPES),
  encrypted_content: sealedBase64("file exceeds 25 MB"),
  wrapped_file_key: z.object({
    iv: ivPart,
    ciphertext: b64Bytes(WRAPPED_KEY_BYTES, WRAPPED_KEY_BYTES, "ciphertext"),
  }),
  encrypted_filename: textCipher,
  encrypted_mime_type: textCipher,
});
export type UploadInput = z.output<typeof UploadBody>;

export const ListQuery = PageQuery.extend({
  parent_id: z.string().min(1).max(128),
  parent_type: z.enum(PARENT_TYPES),
});

const CipherPartSchema = z.object({ iv: z.string(), ciphertext: z.string() });
export const Attachment = z.object({
  id: z.string(),
  parent_id: z.string(),
  parent_type: z.enum(PARENT_TYPES),
  size: z.number().int(),
  created_at: z.string(),
  encrypted_filename: CipherPartSchema,
  encrypted_mime_type: CipherPartSchema,
  /** Listed too (docs/decisions/client.md, "Client: entry tools and account pages"), so a client can decrypt names and types without downloading the content. */
  wrapped_file_key: CipherPartSchema,
});
export type AttachmentView = z.infer<typeof Attachment>;
export const AttachmentWithContent = Attachment.extend({ encrypted_content: z.string() });

export const UploadResponse = z.object({ attachment: Attachment });
/** `usage` (docs/decisions/client.md, "Client: entry tools and account pages"): the quota and what all of the caller's attachments take of it, in bytes. */
export const ListResponse = z.object({
  attachments: z.array(Attachment),
  usage: z.object({ used: z.number().int(), quota: z.number().int() }),
  next_cursor: NextCursor,
});
export const DownloadResponse = z.object({ attachment: AttachmentWithContent });
export { SuccessResponse } from "../../kernel/schemas";
