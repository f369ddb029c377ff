import { AppError, ErrorCode } from "./errors";
import { assertPublicUrl, dohResolver } from "./outbound-guard";

const MAX_REDIRECTS = 5;

/** The two settings outbound requests obey (env.ts: OUTBOUND_ALLOW_PRIVATE, DOH_URL). */
export type OutboundConfig = { allowPrivateOutbound: boolean; DOH_URL: string };

export const guardOptions = (config: OutboundConfig) => ({ allowPrivate: config.allowPrivateOutbound, resolve: dohResolver(config.DOH_URL) });

/**
 * Fetches a user-supplied URL through the outbound guard (DECISIONS D12), following redirects by
 * hand so that every hop is checked again: a public page must not bounce us onto a private one.
 */
export async function guardedFetch(config: OutboundConfig, raw: string, field: string, opts: { timeoutMs?: number } = {}): Promise<{ res: Response; url: URL }> {
  let url = await assertPublicUrl(raw, field, guardOptions(config));
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(url, {
        redirect: "manual",
        headers: { "user-agent": "Mozilla/5.0 (credential-vault sign-in discovery)", accept: "text/html,application/xhtml+xml" },
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
    } catch {
      throw new AppError(ErrorCode.UNPROCESSABLE, "The page could not be reached");
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new AppError(ErrorCode.UNPROCESSABLE, "Too many redirects");
      url = await assertPublicUrl(new URL(location, url).toString(), field, guardOptions(config));
      continue;
    }
    return { res, url };
  }
}

/** Reads at most `max` bytes of a body as text, so a huge page cannot exhaust memory. */
export async function readCapped(res: Response, max = 2 * 1024 * 1024): Promise<string> {
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
