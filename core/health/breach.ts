/**
 * Exposed passwords by k-anonymity (the Pwned Passwords range model): a password's SHA-1 is
 * computed here, only its first five hex characters are sent (through the worker's
 * /api/breach/range/<prefix>, which relays a padded range), and the other 35 are compared on this
 * device. Rows with a count of 0 are the upstream's padding and never count as a match.
 */

/** The worker's relay of the range (the web app's health page and the extension ask it alike). */
export const HEALTH_ENDPOINTS = {
  breachRange: { method: "GET", path: "/api/breach/range/{prefix}", reads: [] },
} as const;

/** Fetches the range text for an upper-case five-character prefix. */
export type RangeSource = (prefix: string) => Promise<string>;

export async function sha1Hex(password: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(password));
  let out = "";
  for (const b of new Uint8Array(digest)) out += b.toString(16).padStart(2, "0");
  return out.toUpperCase();
}

/** The suffixes of a range that were really seen (count above 0), with their counts. */
export function parseRange(text: string): Map<string, number> {
  const seen = new Map<string, number>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^([0-9A-Fa-f]{35}):(\d+)\s*$/.exec(line);
    if (!m) continue;
    const count = Number(m[2]);
    if (count > 0) seen.set(m[1]!.toUpperCase(), count);
  }
  return seen;
}

/**
 * Looks passwords up, one request per distinct prefix: ranges are kept for the checker's life
 * (a page visit), so checking again, or two passwords sharing a prefix, asks nothing more.
 */
export class BreachChecker {
  private readonly ranges = new Map<string, Promise<Map<string, number>>>();

  constructor(private readonly source: RangeSource) {}

  /** How many times the password was seen in breaches; 0 when never. */
  async timesSeen(password: string): Promise<number> {
    return this.timesSeenHash(await sha1Hex(password));
  }

  async timesSeenHash(hash: string): Promise<number> {
    const prefix = hash.slice(0, 5).toUpperCase();
    let range = this.ranges.get(prefix);
    if (!range) {
      range = this.source(prefix).then(parseRange);
      this.ranges.set(prefix, range);
      // A failed request is forgotten, so the next check asks again.
      range.catch(() => this.ranges.delete(prefix));
    }
    return (await range).get(hash.slice(5).toUpperCase()) ?? 0;
  }

  /** Prefixes asked so far (for tests and the page's progress). */
  get prefixesAsked(): number {
    return this.ranges.size;
  }
}
