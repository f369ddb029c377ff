import { AppError, ErrorCode } from "./errors";
import { checkPublicUrl, dohResolver, parseIp, type GuardOptions } from "./outbound-guard";
import { pinnedGet, type Dial } from "./pinned-http";

const MAX_REDIRECTS = 5;

/** The two settings outbound requests obey (env.ts: OUTBOUND_ALLOW_PRIVATE, DOH_URL). */
export type OutboundConfig = { allowPrivateOutbound: boolean; DOH_URL: string };

export const guardOptions = (config: OutboundConfig) => ({
  allowPrivate: config.allowPrivateOutbound,
  resolve: dohResolver(config.DOH_URL),
});

const HEADERS = {
  "user-agent": "Mozilla/5.0 (credential-vault sign-in discovery)",
  accept: "text/html,application/xhtml+xml",
};
/** What a caller reads of a page at most (readCapped's default). */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** The address to pin: an IPv4 one first (as for IMAP), else an IPv6 one; none when nothing was resolved. */
function pinOf(addresses: string[]): string | undefined {
  return (
    addresses.find((a) => parseIp(a)?.version === 4) ??
    addresses.find((a) => parseIp(a)?.version === 6)
  );
}

/**
 * Fetches a user-supplied URL through the outbound guard (DECISIONS D12), following redirects by
 * hand so that every hop is checked again: a public page must not bounce us onto a private one.
 * Each hop's name is resolved once, and a plain-http hop is sent to the address that passed, not
 * to the name (pinned-http.ts): a second DNS answer pointing inside (rebinding) is never asked
 * for. An https hop goes by name, as the IMAP client's TLS does: the certificate must be valid for
 * the name, which an internal address reached by rebinding cannot present. With private
 * destinations allowed (development) names are not resolved, so nothing is pinned.
 */
export async function guardedFetch(
  config: OutboundConfig,
  raw: string,
  field: string,
  opts: { timeoutMs?: number; resolve?: GuardOptions["resolve"]; dial?: Dial } = {},
): Promise<{ res: Response; url: URL }> {
  const guard = { ...guardOptions(config), ...(opts.resolve ? { resolve: opts.resolve } : {}) };
  let { url, addresses } = await checkPublicUrl(raw, field, guard);
  for (let hop = 0; ; hop++) {
    let res: Response;
    const pin = url.protocol === "http:" ? pinOf(addresses) : undefined;
    const timeoutMs = opts.timeoutMs ?? 10_000;
    try {
      res = pin
        ? await pinnedGet(url, pin.replace(/^\[(.*)\]$/, "$1"), {
            headers: HEADERS,
            timeoutMs,
            maxBodyBytes: MAX_BODY_BYTES,
            dial: opts.dial,
          })
        : await fetch(url, {
            redirect: "manual",
            headers: HEADERS,
            signal: AbortSignal.timeout(timeoutMs),
          });
    } catch {
      throw new AppError(ErrorCode.UNPROCESSABLE, "The page could not be reached");
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new AppError(ErrorCode.UNPROCESSABLE, "Too many redirects");
      ({ url, addresses } = await checkPublicUrl(new URL(location, url).toString(), field, guard));
      continue;
    }
    return { res, url };
  }
}

/** Reads at most `max` bytes of a body as text, so a huge page cannot exhaust memory. */
export async function readCapped(res: Response, max = MAX_BODY_BYTES): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
    if (total >= max) {
      await reader.cancel();
      break;
    }
  }
  const all = new Uint8Array(Math.min(total, max));
  let off = 0;
  for (const c of chunks) {
    const take = Math.min(c.byteLength, all.length - off);
    all.set(c.subarray(0, take), off);
    off += take;
  }
  return new TextDecoder().decode(all);
}
