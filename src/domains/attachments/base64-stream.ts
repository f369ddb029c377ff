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

/**
 * Base64-encodes a byte stream as it flows (RFC 4648 section 4): each chunk is cut to a multiple
 * of three bytes and the remainder carried over, so the output is identical to encoding the whole.
 */
export function base64EncodeStream(): TransformStream<Uint8Array, string> {
  let carry = new Uint8Array(0);
  return new TransformStream<Uint8Array, string>({
    transform(chunk, controller) {
      const joined = new Uint8Array(carry.length + chunk.length);
      joined.set(carry);
      joined.set(chunk, carry.length);
      const whole = joined.length - (joined.length % 3);
      if (whole > 0) controller.enqueue(bytesToBase64(joined.subarray(0, whole)));
      carry = joined.slice(whole);
    },
    flush(controller) {
      if (carry.length) controller.enqueue(bytesToBase64(carry));
    },
  });
}
