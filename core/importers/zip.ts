/**
 * The text files of a zip export (1PUX, Proton Pass, Dashlane's CSV files). Only .data and .json
 * members (or the .csv ones, when asked) are inflated: attachments inside are not read.
 *
 * A zip says how large each member is once inflated, and deflate can expand about a thousandfold,
 * so a small file could fill the page's memory. Before anything is inflated, each wanted member's
 * declared size and their running total are checked against ZIP_LIMITS; while inflating, a member
 * that yields more than it declared is refused at that point (its output is written into a buffer
 * of the declared size, fed a small slice of input at a time, so a lying header never makes the
 * page hold more than the limit plus one slice's output). The central directory is read here
 * (sizes, offsets, ZIP64), and fflate's streaming Inflate does the decompression.
 */
import { ImportFormatError } from "./model";

/**
 * The largest export text a page takes: an import holds at most 5,000 entries from a file of at
 * most 12 MB, and 1Password's export.data runs to a few KB per item (history, sections), so 5,000
 * items are well under 32 MiB; a page then holds that text twice more (string and parsed JSON).
 */
export const ZIP_LIMITS = { memberBytes: 32 * 1024 * 1024, totalBytes: 64 * 1024 * 1024 } as const;
/** Input fed to the inflater at once: at most about 1,032 times this comes out of one slice. */
const SLICE = 4096;

const WANTED = /\.(data|json)$/i;
const sized = (n: number) =>
  n < 1024 * 1024 ? `${n} bytes` : `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`;

type Member = {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
};

const u16 = (b: Uint8Array, o: number) => b[o]! | (b[o + 1]! << 8);
const u32 = (b: Uint8Array, o: number) =>
  (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16)) + b[o + 3]! * 0x1000000;
const u64 = (b: Uint8Array, o: number) => u32(b, o) + u32(b, o + 4) * 0x100000000;

function unreadable(why: string): never {
  throw new ImportFormatError(`The zip file cannot be read: ${why}`);
}

/** The members the central directory lists (ZIP64 sizes and offsets where the 32-bit ones are full). */
function centralDirectory(b: Uint8Array): Member[] {
  let e = b.length - 22;
  const lowest = Math.max(0, b.length - 22 - 0xffff);
  while (e >= lowest && u32(b, e) !== 0x06054b50) e--;
  if (e < lowest) unreadable("no end of central directory");
  let count = u16(b, e + 10);
  let offset = u32(b, e + 16);
  if (e >= 20 && u32(b, e - 20) === 0x07064b50) {
    const z = u64(b, e - 12);
    if (z + 56 > b.length || u32(b, z) !== 0x06064b50) unreadable("a damaged ZIP64 directory");
    count = u64(b, z + 32);
    offset = u64(b, z + 48);
  }
  const members: Member[] = [];
  let o = offset;
  for (let i = 0; i < count; i++) {
    if (o + 46 > b.length || u32(b, o) !== 0x02014b50) unreadable("a damaged central directory");
    const flags = u16(b, o + 8);
    const nameLength = u16(b, o + 28);
    const extraLength = u16(b, o + 30);
    const m: Member = {
      name: "",
      method: u16(b, o + 10),
      flags,
      compressedSize: u32(b, o + 20),
      size: u32(b, o + 24),
      localOffset: u32(b, o + 42),
    };
    const nameBytes = b.subarray(o + 46, o + 46 + nameLength);
    m.name = new TextDecoder(flags & 0x800 ? "utf-8" : "latin1").decode(nameBytes);
    // ZIP64 extra field: the 64-bit values, in this order, of those whose 32-bit field is full.
    for (let x = o + 46 + nameLength; x + 4 <= o + 46 + nameLength + extraLength; ) {
      const id = u16(b, x);
      const len = u16(b, x + 2);
      if (id === 0x0001) {
        let at = x + 4;
        for (const k of ["size", "compressedSize", "localOffset"] as const) {
          if (m[k] === 0xffffffff && at + 8 <= x + 4 + len) (m[k] = u64(b, at)), (at += 8);
        }
      }
      x += 4 + len;
    }
    members.push(m);
    o += 46 + nameLength + extraLength + u16(b, o + 32);
  }
  return members;
}

/** The member's stored bytes, found through its local header. */
function storedBytes(b: Uint8Array, m: Member): Uint8Array {
  const o = m.localOffset;
  if (o + 30 > b.length || u32(b, o) !== 0x04034b50) unreadable(`${m.name} has no local header`);
  const start = o + 30 + u16(b, o + 26) + u16(b, o + 28);
  if (start + m.compressedSize > b.length) unreadable(`${m.name} is cut short`);
  return b.subarray(start, start + m.compressedSize);
}

/** Inflates into a buffer of the declared size; more output than declared stops it there. */
async function inflated(stored: Uint8Array, m: Member): Promise<Uint8Array> {
  if (m.method === 0) {
    if (m.compressedSize !== m.size)
      unreadable(`${m.name} is stored with a size that does not match its header`);
    return stored;
  }
  if (m.method !== 8) unreadable(`${m.name} uses a compression other than deflate (${m.method})`);
  const { Inflate } = await import("fflate");
  const out = new Uint8Array(m.size);
  let written = 0;
  let ended = false;
  const inflater = new Inflate((chunk, final) => {
    if (written + chunk.length > m.size) {
      throw new ImportFormatError(
        `${m.name} inflates to more than the ${sized(m.size)} its header declares: the zip file is refused`,
      );
    }
    out.set(chunk, written);
    written += chunk.length;
    ended ||= final;
  });
  try {
    for (let at = 0; at < stored.length; at += SLICE)
      inflater.push(stored.subarray(at, at + SLICE), at + SLICE >= stored.length);
    if (!stored.length) inflater.push(new Uint8Array(0), true);
  } catch (err) {
    if (err instanceof ImportFormatError) throw err;
    unreadable(err instanceof Error ? err.message : String(err));
  }
  if (!ended || written !== m.size)
    unreadable(`${m.name} holds ${written} bytes where its header declares ${m.size}`);
  return out;
}

/** The zip's text members whose names match `wanted` (by default .data and .json), inflated. */
export async function readZip(
  bytes: Uint8Array,
  wanted: RegExp = WANTED,
): Promise<Map<string, string>> {
  const members = centralDirectory(bytes).filter(
    (m) => wanted.test(m.name) && !m.name.endsWith("/"),
  );
  let total = 0;
  for (const m of members) {
    if (m.flags & 1)
      throw new ImportFormatError(
        `${m.name} is encrypted inside the zip: export again without a zip password`,
      );
    if (m.size > ZIP_LIMITS.memberBytes)
      throw new ImportFormatError(
        `${m.name} declares ${sized(m.size)} once unzipped, more than the ${sized(ZIP_LIMITS.memberBytes)} an export's text may be: the zip file is refused`,
      );
    total += m.size;
    if (total > ZIP_LIMITS.totalBytes)
      throw new ImportFormatError(
        `The zip file's text declares more than ${sized(ZIP_LIMITS.totalBytes)} once unzipped: it is refused`,
      );
  }
  const dec = new TextDecoder();
  const files = new Map<string, string>();
  for (const m of members) files.set(m.name, dec.decode(await inflated(storedBytes(bytes, m), m)));
  return files;
}
