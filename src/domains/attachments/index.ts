/** The attachments domain's public surface: other domains and the entry import only this file. */
export { registerAttachmentRoutes } from "./routes";
/** Secure links store their ciphertext the same way: the limits, the base64 check and the streaming codec. */
export {
  decodedLength,
  GCM_TAG_BYTES,
  IV_BYTES,
  MAX_CONTENT_BYTES,
  MAX_CONTENT_CHARS,
  MAX_FILE_BYTES,
  sealedBase64,
  UPLOAD_BODY_LIMIT,
} from "./schema";
export { base64EncodeStream, decodeBase64, jsonAroundBase64 } from "./base64-stream";
