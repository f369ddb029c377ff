/**
 * Standard base64 (with padding) for binary blobs, as src/client/attachments.ts writes them; typed
 * for the DOM's BufferSource, which wants ArrayBuffer-backed views.
 */
export function toBase64(bytes: Uint8Array): string {
  let out = "";
  // Multiples of 3 bytes so the pieces concatenate into one valid base64 string.
  const STEP = 3 * 8192;
  for (let i = 0; i < bytes.length; i += STEP) out += btoa(String.fromCharCode(...bytes.subarray(i, i + STEP)));
  return out;
}

export function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
