/**
 * When the extension may fill: pure rules, shared by the offscreen vault (which decides) and the
 * tests. An entry fills only into a top-level page, or a frame of the page's own origin, whose
 * registrable domain (eTLD+1 from the Public Suffix List) is the entry's: "github.com.evil.example"
 * has registrable domain "evil.example" and never gets a github.com entry. An https entry fills
 * into a plain-http page only when the user confirms.
 */
import { getDomain, getHostname } from "tldts";

/** The registrable domain of a URL or bare host, lower case; the host itself for IPs and single labels. */
export function registrableDomain(urlOrHost: string): string | null {
  const s = urlOrHost.trim().toLowerCase();
  if (!s) return null;
  const host = getHostname(/^[a-z][a-z0-9+.-]*:\/\//.test(s) ? s : `https://${s}`);
  if (!host) return null;
  return getDomain(host, { allowPrivateDomains: true }) ?? host.replace(/^\[|\]$/g, "");
}

export type FillContext = { pageUrl: string; crossOriginFrame: boolean };
export type Verdict = "fill" | "confirm-insecure" | "refuse-frame" | "refuse-domain";

/** The entry's URL (or bare website) against the page it would fill. */
export function verdict(ctx: FillContext, entryUrl: string | null, confirmedInsecure = false): Verdict {
  if (ctx.crossOriginFrame) return "refuse-frame";
  const page = registrableDomain(ctx.pageUrl);
  if (!page || !entryUrl || registrableDomain(entryUrl) !== page) return "refuse-domain";
  const pageHttp = ctx.pageUrl.toLowerCase().startsWith("http:");
  const entryHttps = entryUrl.trim().toLowerCase().startsWith("https:");
  if (pageHttp && entryHttps && !confirmedInsecure) return "confirm-insecure";
  return "fill";
}
