/**
 * Standard base64 with padding for binary blobs, shared by every client-side module (attachments,
 * the web client's vault crypto). Chunked both ways so a 25 MB blob never becomes one argument list
 * or one binary string; the result is ArrayBuffer-backed, as the DOM's BufferSource wants.
 */
export function toBase64(bytes: Uint8Array): string {
  let out = "";
  // Multiples of 3 bytes so the pieces concatenate into one valid base64 string.
  const STEP = 3 * 8192;
  for (let i = 0; i < bytes.length; i += STEP) out += btoa(String.fromCharCode(...bytes.subarray(i, i + STEP)));
  return out;
}

export function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(Math.floor((b64.length * 3) / 4) - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0));
  const STEP = 4 * 8192;
  let o = 0;
  for (let i = 0; i < b64.length; i += STEP) {
    const bin = atob(b64.slice(i, i + STEP));
    for (let j = 0; j < bin.length; j++) out[o++] = bin.charCodeAt(j);
  }
  return out;
}
