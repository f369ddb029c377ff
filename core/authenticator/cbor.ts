/**
 * The subset of CBOR (RFC 8949) WebAuthn needs: unsigned and negative integers, byte and text
 * strings, arrays, maps and booleans, in the CTAP2 canonical form (RFC 8949 §4.2.1 and CTAP2.1
 * §8: shortest argument encoding; map keys sorted by their encoded bytes, shorter first). No
 * floats, tags or indefinite lengths: a decoder meeting one refuses it.
 */
export type CborValue = number | string | boolean | Uint8Array | CborValue[] | CborMap;
export type CborMap = Map<number | string, CborValue>;

function head(major: number, n: number): number[] {
  const m = major << 5;
  if (n < 24) return [m | n];
  if (n < 0x100) return [m | 24, n];
  if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
  if (n < 0x100000000)
    return [m | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  const hi = Math.floor(n / 0x100000000);
  const lo = n >>> 0;
  return [
    m | 27,
    (hi >>> 24) & 0xff,
    (hi >> 16) & 0xff,
    (hi >> 8) & 0xff,
    hi & 0xff,
    (lo >>> 24) & 0xff,
    (lo >> 16) & 0xff,
    (lo >> 8) & 0xff,
    lo & 0xff,
  ];
}

const enc = new TextEncoder();

function parts(v: CborValue, out: number[][]): void {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) throw new TypeError("CBOR: only safe integers are encoded");
    out.push(v >= 0 ? head(0, v) : head(1, -1 - v));
  } else if (typeof v === "boolean") out.push([v ? 0xf5 : 0xf4]);
  else if (typeof v === "string") {
    const b = enc.encode(v);
    out.push(head(3, b.length), [...b]);
  } else if (v instanceof Uint8Array) out.push(head(2, v.length), [...v]);
  else if (Array.isArray(v)) {
    out.push(head(4, v.length));
    for (const x of v) parts(x, out);
  } else {
    const entries = [...v.entries()].map(([k, x]) => ({ key: encodeCbor(k), x }));
    entries.sort((a, b) => a.key.length - b.key.length || compareBytes(a.key, b.key));
    out.push(head(5, entries.length));
    for (const e of entries) {
      out.push([...e.key]);
      parts(e.x, out);
    }
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export function encodeCbor(v: CborValue): Uint8Array<ArrayBuffer> {
  const out: number[][] = [];
  parts(v, out);
  return new Uint8Array(out.flat());
}

/** Decodes one item; `end` is where it stopped (authenticatorData's attested data is followed by more). */
export function decodeCbor(bytes: Uint8Array, start = 0): { value: CborValue; end: number } {
  let at = start;
  const take = (n: number) => {
    if (at + n > bytes.length) throw new RangeError("CBOR: truncated");
    const s = bytes.subarray(at, at + n);
    at += n;
    return s;
  };
  const item = (depth: number): CborValue => {
    if (depth > 16) throw new RangeError("CBOR: nested too deep");
    const first = take(1)[0]!;
    const major = first >> 5;
    const info = first & 0x1f;
    if (major === 7) {
      if (info === 20) return false;
      if (info === 21) return true;
      throw new RangeError("CBOR: unsupported simple value or float");
    }
    let n: number;
    if (info < 24) n = info;
    else if (info <= 27) {
      n = 0;
      for (const b of take(1 << (info - 24))) n = n * 256 + b;
      if (!Number.isSafeInteger(n)) throw new RangeError("CBOR: integer too large");
    } else throw new RangeError("CBOR: indefinite length or reserved");
    switch (major) {
      case 0:
        return n;
      case 1:
        return -1 - n;
      case 2:
        return new Uint8Array(take(n));
      case 3:
        return new TextDecoder("utf-8", { fatal: true }).decode(take(n));
      case 4:
        return Array.from({ length: n }, () => item(depth + 1));
      case 5: {
        const m: CborMap = new Map();
        for (let i = 0; i < n; i++) {
          const k = item(depth + 1);
          if (typeof k !== "number" && typeof k !== "string")
            throw new RangeError("CBOR: map key of another type");
          m.set(k, item(depth + 1));
        }
        return m;
      }
      default:
        throw new RangeError("CBOR: tags are not supported");
    }
  };
  const value = item(0);
  return { value, end: at };
}
