import { AppError, ErrorCode } from "./errors";

/**
 * The outbound guard of DECISIONS D12: a user-supplied URL or host may only reach public
 * addresses. Shared by the IMAP connect and the reset automation.
 */

export type IpAddress = { version: 4; bytes: Uint8Array } | { version: 6; bytes: Uint8Array };

export type Resolver = (host: string) => Promise<string[]>;

export type GuardOptions = {
  /** OUTBOUND_ALLOW_PRIVATE: opens addresses only; schemes and ports stay checked. */
  allowPrivate: boolean;
  /** Resolves a hostname to its addresses; needed for names unless allowPrivate. */
  resolve?: Resolver;
};

/**
 * Parses an IPv4 literal the way inet_aton(3) and the WHATWG URL parser do, so every spelling
 * that a socket library would accept is recognised: 1 to 4 parts, each decimal, 0x-hex or
 * 0-octal, the last part filling the remaining bytes (127.1, 2130706433, 0x7f000001, 0177.0.0.1).
 */
export function parseIPv4(input: string): Uint8Array | null {
  const s = input.endsWith(".") ? input.slice(0, -1) : input;
  if (!s) return null;
  const parts = s.split(".");
  if (parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(p)) n = parseInt(p, 10);
    else return null;
    if (!Number.isFinite(n)) return null;
    nums.push(n);
  }
  const last = nums.pop() as number;
  if (nums.some((n) => n > 255)) return null;
  const lastBytes = 4 - nums.length;
  if (last >= 2 ** (8 * lastBytes)) return null;
  const out = new Uint8Array(4);
  nums.forEach((n, i) => (out[i] = n));
  for (let i = 3, v = last; i >= nums.length; i--, v = Math.floor(v / 256)) out[i] = v % 256;
  return out;
}

/** Parses an IPv6 literal (RFC 4291 section 2.2 text forms, with an optional zone id). */
export function parseIPv6(input: string): Uint8Array | null {
  let s = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(":") || !/^[0-9a-f:.]+$/i.test(s)) return null;
  const lastColon = s.lastIndexOf(":");
  const after = s.slice(lastColon + 1);
  if (after.includes(".")) {
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(after)) return null;
    const v4 = after.split(".").map(Number);
    if (v4.some((n) => n > 255)) return null;
    const hex = (n: number) => n.toString(16);
    s = `${s.slice(0, lastColon + 1)}${hex((v4[0] << 8) | v4[1])}:${hex((v4[2] << 8) | v4[3])}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parseGroups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = parseGroups(halves[0]);
  const rest = halves.length === 2 ? parseGroups(halves[1]) : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null;
  const groupsNeeded = 8;
  let groups: number[];
  if (halves.length === 2) {
    const fill = groupsNeeded - head.length - rest.length;
    if (fill < 1) return null;
    groups = [
      ...head.map((g) => parseInt(g, 16)),
      ...new Array(fill).fill(0),
      ...rest.map((g) => parseInt(g, 16)),
    ];
  } else {
    if (head.length !== groupsNeeded) return null;
    groups = head.map((g) => parseInt(g, 16));
  }
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

export function parseIp(host: string): IpAddress | null {
  const v6 = parseIPv6(host);
  if (v6) return { version: 6, bytes: v6 };
  const v4 = parseIPv4(host);
  return v4 ? { version: 4, bytes: v4 } : null;
}

const inV4 = (b: Uint8Array, net: [number, number, number, number], bits: number) => {
  for (let i = 0; i < 4 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((b[i] & mask) !== (net[i] & mask)) return false;
  }
  return true;
};

/** Non-public IPv4 ranges (RFC 6890 special-purpose registry, plus multicast and class E). */
const V4_BLOCKED: [[number, number, number, number], number][] = [
  [[0, 0, 0, 0], 8],
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10],
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16],
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24],
  [[192, 0, 2, 0], 24],
  [[192, 88, 99, 0], 24],
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15],
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
  [[224, 0, 0, 0], 4],
  [[240, 0, 0, 0], 4],
];

function isPrivateV4(b: Uint8Array): boolean {
  return V4_BLOCKED.some(([net, bits]) => inV4(b, net, bits));
}

function isPrivateV6(b: Uint8Array): boolean {
  const zeroUpTo = (n: number) => b.subarray(0, n).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped, RFC 4291 2.5.5.2) and ::a.b.c.d (compatible, 2.5.5.1) carry IPv4.
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return isPrivateV4(b.subarray(12));
  if (zeroUpTo(12)) return true;
  // ::ffff:0:a.b.c.d (SIIT, RFC 2765) and 64:ff9b::/96 (NAT64, RFC 6052) translate to IPv4.
  if (zeroUpTo(8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0)
    return isPrivateV4(b.subarray(12));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) return true;
  // 6to4 (RFC 3056) embeds the IPv4 address in bytes 2..5.
  if (b[0] === 0x20 && b[1] === 0x02) return isPrivateV4(b.subarray(2, 6));
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return true;
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return true;
  if ((b[0] & 0xfe) === 0xfc) return true;
  if (b[0] === 0xff) return true;
  if (b[0] === 0x01 && b[1] === 0x00 && zeroUpTo(8)) return true;
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return true;
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) return true;
  return false;
}

export function isPrivateAddress(ip: IpAddress): boolean {
  return ip.version === 4 ? isPrivateV4(ip.bytes) : isPrivateV6(ip.bytes);
}

/** Names that never leave the machine (RFC 6761 section 6.3) or the local network. */
function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return (
    h === "localhost" ||
    h.endsWith(".localhost") ||
    h.endsWith(".local") ||
    h.endsWith(".internal") ||
    !h.includes(".")
  );
}

const HOSTNAME =
  /^(?=.{1,253}\.?$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*\.?$/i;

function refuse(field: string, message: string): AppError {
  return new AppError(ErrorCode.VALIDATION_ERROR, "Destination refused", {
    details: [{ field, message }],
  });
}

/**
 * Refuses a host that is, or resolves to, a non-public address. Every resolved address must be
 * public: a name with one public and one private record is refused. Returns the addresses that
 * passed (the literal itself, or what the name resolved to; empty when nothing was resolved
 * because private destinations are allowed), so a caller can connect to exactly those.
 */
export async function assertPublicHost(
  host: string,
  field: string,
  opts: GuardOptions,
): Promise<string[]> {
  const trimmed = host.trim();
  const ip = parseIp(trimmed);
  if (ip) {
    if (!opts.allowPrivate && isPrivateAddress(ip)) throw refuse(field, "address is not public");
    return [trimmed];
  }
  if (!HOSTNAME.test(trimmed)) throw refuse(field, "not a valid hostname or address");
  if (opts.allowPrivate) return [];
  if (isLocalName(trimmed)) throw refuse(field, "address is not public");
  if (!opts.resolve) throw refuse(field, "hostname cannot be resolved");
  let addresses: string[];
  try {
    addresses = await opts.resolve(trimmed);
  } catch {
    throw refuse(field, "hostname cannot be resolved");
  }
  if (addresses.length === 0) throw refuse(field, "hostname cannot be resolved");
  for (const a of addresses) {
    const parsed = parseIp(a);
    if (!parsed || isPrivateAddress(parsed))
      throw refuse(field, "hostname resolves to an address that is not public");
  }
  return addresses;
}

/** A URL must be http or https and its host public (D12). Returns the parsed URL. */
export async function assertPublicUrl(
  raw: string,
  field: string,
  opts: GuardOptions,
): Promise<URL> {
  return (await checkPublicUrl(raw, field, opts)).url;
}

/** assertPublicUrl, also returning the addresses that passed (see assertPublicHost), for a caller that pins one. */
export async function checkPublicUrl(
  raw: string,
  field: string,
  opts: GuardOptions,
): Promise<{ url: URL; addresses: string[] }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse(field, "not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw refuse(field, "URL must be http or https");
  if (url.username || url.password) throw refuse(field, "URL must not carry credentials");
  const addresses = await assertPublicHost(url.hostname, field, opts);
  return { url, addresses };
}

/** DNS over HTTPS (RFC 8484, JSON form) for A and AAAA records. */
export function dohResolver(endpoint: string, fetcher: typeof fetch = fetch): Resolver {
  return async (host) => {
    const out: string[] = [];
    for (const type of ["A", "AAAA"]) {
      const url = new URL(endpoint);
      url.searchParams.set("name", host);
      url.searchParams.set("type", type);
      const res = await fetcher(url, { headers: { accept: "application/dns-json" } });
      if (!res.ok) throw new Error(`resolver answered ${res.status}`);
      const json = (await res.json()) as {
        Status?: number;
        Answer?: { type: number; data: string }[];
      };
      if (json.Status !== 0 && json.Status !== 3) throw new Error(`resolver status ${json.Status}`);
      for (const a of json.Answer ?? []) if (a.type === 1 || a.type === 28) out.push(a.data);
    }
    return out;
  };
}
