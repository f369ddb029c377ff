import { AppError, ErrorCode } from "../../lib/errors";
import { errorName, logJson } from "../../lib/log";

/**
 * The Pwned Passwords range lookup (k-anonymity model, https://haveibeenpwned.com/API/v3#PwnedPasswords):
 * the client sends the first five hex characters of a password's SHA-1 and compares the returned
 * suffixes itself, so neither this worker nor the upstream ever sees more than the prefix. Every
 * upstream call asks for padding (`Add-Padding: true`), so the answer's size says nothing either.
 */

/** Five hexadecimal characters; either case is accepted and the upper-case form is what travels. */
export const RANGE_PREFIX = /^[0-9A-Fa-f]{5}$/;
/** One line of a range: the other 35 hex characters of the hash and how often it was seen (0: padding). */
const RANGE_LINE = /^[0-9A-F]{35}:\d+$/;
/** Ranges change slowly (the upstream itself caches them for days); a day keeps new breaches near. */
export const RANGE_TTL_SECONDS = 24 * 60 * 60;
const UPSTREAM_TIMEOUT_MS = 10_000;

/** Checks the upstream's body is a range and returns it with CRLF line ends and no blank lines. */
function parseRange(text: string): string | null {
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  return lines.every((l) => RANGE_LINE.test(l)) ? lines.join("\r\n") : null;
}

/**
 * The range for an upper-case prefix: from the edge cache (the Cache API, keyed by the upstream
 * URL) when this data centre has it, else from the upstream, then kept. An upstream failure or an
 * answer that is not a range is 503, and nothing is cached.
 */
export async function rangeFor(upstreamBase: string, prefix: string): Promise<string> {
  const url = `${upstreamBase}${prefix}`;
  const cache = caches.default;
  const key = new Request(url, { method: "GET" });
  const hit = await cache.match(key);
  if (hit) return hit.text();
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { "Add-Padding": "true", "User-Agent": "credential-vault-health-check" },
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
    });
  } catch (err) {
    logJson("warn", "breach range upstream unreachable", { error: errorName(err) });
    throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "The breach check service is unavailable");
  }
  const body = res.ok ? parseRange(await res.text()) : null;
  if (body === null) {
    // The status only: the prefix stays out of logs, as it stays out of the request log's line.
    logJson("warn", "breach range upstream refused", { status: res.status });
    throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "The breach check service is unavailable");
  }
  await cache.put(
    key,
    new Response(body, {
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "cache-control": `public, max-age=${RANGE_TTL_SECONDS}`,
      },
    }),
  );
  return body;
}
