/**
 * Whether a KDBX file is whole, read from its structure alone (no key): a file cut short (a
 * download or sync that stopped early) must not be reported as a wrong password, which is what
 * the decryption would otherwise say. The layout is KeePass's own (keepass.info, "KDBX 4"):
 * signature (8 bytes) and version (4), then header fields of type, length (2 bytes in KDBX 3,
 * 4 in KDBX 4) and value, ended by field 0. KDBX 4 then holds the header's SHA-256 and HMAC
 * (32 bytes each) and HMAC blocks (HMAC 32, length 4, data) ended by a block of length 0; KDBX 3
 * holds the encrypted payload to the end of the file.
 */

/** KDBX 3's ChaCha20 cipher id (a stream cipher: its payload may have any length). */
const CHACHA20 = "d6038a2b8b6f4cb5a524339a31dbb59a";
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** The sentence for a KDBX file that ends early, or null when its structure is whole. */
export function kdbxCutShort(b: Uint8Array): string | null {
  const cut = (part: "header" | "data") =>
    `This KeePass database is cut short: it ends at byte ${b.length}, inside its ${part}. Copy the .kdbx file again from where it is kept (a download or sync that stopped early leaves a file like this) and import the new copy.`;
  if (b.length < 12) return cut("header");
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const major = dv.getUint16(10, true);
  // Another version is named by the reader ("a format this app cannot read").
  if (major !== 3 && major !== 4) return null;
  const lenSize = major === 4 ? 4 : 2;
  let p = 12;
  let cipher = "";
  for (;;) {
    if (p + 1 + lenSize > b.length) return cut("header");
    const id = b[p]!;
    const len = major === 4 ? dv.getUint32(p + 1, true) : dv.getUint16(p + 1, true);
    p += 1 + lenSize;
    if (p + len > b.length) return cut("header");
    if (id === 2) cipher = hex(b.subarray(p, p + len));
    p += len;
    if (id === 0) break;
  }
  if (major === 4) {
    if (p + 64 > b.length) return cut("header");
    p += 64;
    for (;;) {
      if (p + 36 > b.length) return cut("data");
      const len = dv.getUint32(p + 32, true);
      p += 36;
      if (p + len > b.length) return cut("data");
      p += len;
      if (len === 0) return null;
    }
  }
  // KDBX 3: AES and Twofish (CBC) leave whole 16-byte blocks, and the payload starts with the
  // 32 stream start bytes. A cut that falls on a block boundary cannot be told from a wrong key
  // without the key: the reader then says the password does not open it.
  const payload = b.length - p;
  if (payload < 32 || (cipher !== CHACHA20 && payload % 16 !== 0)) return cut("data");
  return null;
}
