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

const ALPHABET = new TextEncoder().encode(
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
);
const PAD = 61;

/**
 * Standard base64 with padding (RFC 4648 section 4) straight into ASCII bytes. Going through a
 * binary string, btoa and TextEncoder cost about 25 times as much per block, which made a 25 MB
 * download CPU-bound (bench/attachments.mjs).
 */
export function base64EncodeBytes(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  const out = new Uint8Array(Math.ceil(n / 3) * 4);
  let i = 0;
  let o = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out[o++] = ALPHABET[v >> 18];
    out[o++] = ALPHABET[(v >> 12) & 63];
    out[o++] = ALPHABET[(v >> 6) & 63];
    out[o++] = ALPHABET[v & 63];
  }
  if (i < n) {
    const two = i + 1 < n;
    const v = (bytes[i] << 16) | ((two ? bytes[i + 1] : 0) << 8);
    out[o++] = ALPHABET[v >> 18];
    out[o++] = ALPHABET[(v >> 12) & 63];
    out[o++] = two ? ALPHABET[(v >> 6) & 63] : PAD;
    out[o++] = PAD;
  }
  return out;
}

/**
 * Base64-encodes a byte stream as it flows into ASCII bytes. Input is gathered into blocks of a
 * multiple of three bytes, so the pieces join into exactly the encoding of the whole.
 */
export function base64EncodeStream(): TransformStream<Uint8Array, Uint8Array> {
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
          controller.enqueue(base64EncodeBytes(block));
          filled = 0;
        }
      }
    },
    flush(controller) {
      if (filled) controller.enqueue(base64EncodeBytes(block.subarray(0, filled)));
    },
  });
}

/**
 * A JSON document whose one string field is a stored blob, base64-encoded as R2 yields it:
 * `prefix` (the JSON up to the field's opening quote), the encoded bytes, then `suffix`.
 * Pull-driven, so R2 is read only as fast as the client takes the response, and a 25 MB blob is
 * never held whole.
 */
export function jsonAroundBase64(
  prefix: string,
  body: ReadableStream<Uint8Array>,
  suffix: string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const head = encoder.encode(prefix);
  const tail = encoder.encode(suffix);
  const reader = body.pipeThrough(base64EncodeStream()).getReader();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(head);
        return;
      }
      const { done, value } = await reader.read();
      if (done) {
        controller.enqueue(tail);
        controller.close();
      } else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
