/**
 * When the extension may fill: pure rules, shared by the offscreen vault (which decides) and the
 * tests. An entry fills only into a top-level page, or a frame of the page's own origin, whose host
 * is the entry's own host or a subdomain of it: an entry for accounts.example.com is not offered on
 * evil.example.com (a sibling) nor on example.com (a parent), and "github.com.evil.example" is no
 * subdomain of github.com. The entry's host and scheme are the ones its ciphertext vouches for
 * (entry-lookup.ts `sealedAddress`). An https entry never fills a plain-http page: its scheme is
 * authenticated, so an http page on its host is another site as far as the sign-in goes. Only an
 * entry whose ciphertext names no scheme at all (sealed before the scheme was) is taken as https
 * and fills an http page once the person confirms in extension UI.
 */
import { candidateHosts, hostCovers, normalizeHost } from "../../src/kernel/hostname";

/** The hosts an entry may be stored under to fill a page on `pageUrl`: its host and each parent (as the server's match). */
export function entryHostsFor(pageUrl: string): string[] {
  const host = normalizeHost(pageUrl);
  return host ? candidateHosts(host) : [];
}

export type FillContext = { pageUrl: string; crossOriginFrame: boolean };
export type Verdict =
  | "fill"
  | "confirm-insecure"
  | "refuse-insecure"
  | "refuse-frame"
  | "refuse-domain";

/**
 * The entry's address (scheme and host, or a bare host when its ciphertext names no scheme)
 * against the page it would fill. `schemeSealed` false: the https is assumed, not vouched for
 * (entry-lookup.ts), and the person may confirm a fill into http.
 */
export function verdict(
  ctx: FillContext,
  entryAddress: string | null,
  confirmedInsecure = false,
  schemeSealed = true,
): Verdict {
  if (ctx.crossOriginFrame) return "refuse-frame";
  const page = normalizeHost(ctx.pageUrl);
  const entry = entryAddress ? normalizeHost(entryAddress) : null;
  if (!page || !entry || !hostCovers(entry, page)) return "refuse-domain";
  const pageHttp = ctx.pageUrl.trim().toLowerCase().startsWith("http:");
  const entryHttps = entryAddress!.trim().toLowerCase().startsWith("https:");
  if (pageHttp && entryHttps)
    return schemeSealed ? "refuse-insecure" : confirmedInsecure ? "fill" : "confirm-insecure";
  return "fill";
}

/** One of an entry's extra addresses as sealed in it (core/entry/entry-model.ts EntryUrl). */
export type ExtraAddress = { url: string; match: string };

const ORDER: Verdict[] = [
  "fill",
  "confirm-insecure",
  "refuse-insecure",
  "refuse-domain",
  "refuse-frame",
];

/**
 * Whether an extra address's own rule admits the page, before the host and scheme checks of
 * `verdict`: `domain` as the entry's own address (its host or a subdomain), `host` that host only,
 * `starts_with` and `exact` the page's URL against the address. A regular expression is not run
 * (it came from another manager's file and could be made to hang or to match anything), and
 * `never` never matches.
 */
function ruleAdmits(pageUrl: string, a: ExtraAddress): boolean {
  const page = normalizeHost(pageUrl);
  const host = normalizeHost(a.url);
  if (!page || !host) return false;
  switch (a.match) {
    case "domain":
      return true;
    case "host":
      return page === host;
    case "starts_with":
    case "exact": {
      let p: string, e: string;
      try {
        p = new URL(pageUrl).href;
        e = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(a.url) ? a.url : `https://${a.url}`).href;
      } catch {
        return false;
      }
      return a.match === "exact" ? p === e : p.startsWith(e);
    }
    default:
      return false;
  }
}

/**
 * The best verdict over an entry's addresses, all vouched for by its ciphertext: its main address
 * (as `verdict`) and each extra one its rule admits. "fill" beats "confirm-insecure" beats a refusal.
 * Extra addresses are sealed inside the entry, so their schemes are always vouched for.
 */
export function entryVerdict(
  ctx: FillContext,
  mainAddress: string | null,
  extra: readonly ExtraAddress[] | undefined,
  confirmedInsecure = false,
  mainSchemeSealed = true,
): Verdict {
  const all = [
    verdict(ctx, mainAddress, confirmedInsecure, mainSchemeSealed),
    ...(extra ?? [])
      .filter((a) => ruleAdmits(ctx.pageUrl, a))
      .map((a) => verdict(ctx, a.url, confirmedInsecure)),
  ];
  return all.reduce((best, v) => (ORDER.indexOf(v) < ORDER.indexOf(best) ? v : best));
}
