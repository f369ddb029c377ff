/**
 * Joins byte strings into one, as wire formats are assembled (SSH's RFC 4251 encodings, WebAuthn's
 * authenticator data, sealed envelopes, a de-chunked HTTP body). The result is backed by an
 * ArrayBuffer of its own, as WebCrypto's BufferSource wants.
 */
export function concatBytes(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
