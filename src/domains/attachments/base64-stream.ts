import { bytesToBase64 } from "../../lib/crypto";

/**
 * Decodes canonical base64 (already validated) into bytes a slice at a time, so a 35 MB payload
 * never exists a second time as one binary string.
 */
export function decodeBase64(b64: string, decodedLength: number): Uint8Array {
  const out = new Uint8Array(decodedLength);
  const SLICE = 4 * 16384;
  let o = 0;
  for (let i = 0; i < b64.length; i += SLICE) {
    const bin = atob(b64.slice(i, i + SLICE));
    for (let j = 0; j < bin.length; j++) out[o++] = bin.charCodeAt(j);
  }
  return out;
}

/** Bytes gathered before encoding: small R2 chunks cost more per byte than the copy into one buffer. */
const BLOCK = 3 * 256 * 1024;

/**
 * Base64-encodes a byte stream as it flows (RFC 4648 section 4) into ASCII bytes. Input is gathered
 * into blocks of a multiple of three bytes, so the pieces join into exactly the encoding of the whole.
 */
export function base64EncodeStream(): TransformStream<Uint8Array, Uint8Array> {
  const ascii = new TextEncoder();
  const block = new Uint8Array(BLOCK);
  let filled = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let offset = 0;
      while (offset < chunk.length) {
        const n = Math.min(BLOCK - filled, chunk.length - offset);
        block.set(chunk.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled === BLOCK) {
          controller.enqueue(ascii.encode(bytesToBase64(block)));
          filled = 0;
        }
      }
    },
    flush(controller) {
      if (filled) controller.enqueue(ascii.encode(bytesToBase64(block.subarray(0, filled))));
    },
  });
}
