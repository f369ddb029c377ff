/**
 * The one base64 (RFC 4648 §4) and base64url (§5) codec, shared by the worker, the web client and the
 * importers: pure, Web APIs only. Chunked both ways so a 25 MB blob never becomes one argument list
 * or one binary string; decoded bytes are ArrayBuffer-backed, as the DOM's BufferSource wants.
 */
export function toBase64(bytes: Uint8Array): string {
  let out = "";
  // Multiples of 3 bytes so the pieces concatenate into one valid base64 string.
  const STEP = 3 * 8192;
  for (let i = 0; i < bytes.length; i += STEP)
    out += btoa(String.fromCharCode(...bytes.subarray(i, i + STEP)));
  return out;
}

/** Accepts either alphabet, with or without padding (the spec's blobs come in both). */
export function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  const norm = b64.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const padded = norm + "===".slice((norm.length + 3) % 4);
  const out = new Uint8Array(Math.floor((norm.length * 3) / 4));
  const STEP = 4 * 8192;
  let o = 0;
  for (let i = 0; i < padded.length; i += STEP) {
    const bin = atob(padded.slice(i, i + STEP));
    for (let j = 0; j < bin.length; j++) out[o++] = bin.charCodeAt(j);
  }
  return out;
}

export const base64url = {
  encode(bytes: Uint8Array): string {
    return toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
  decode(s: string): Uint8Array<ArrayBuffer> {
    return fromBase64(s);
  },
};
