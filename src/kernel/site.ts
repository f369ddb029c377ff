/**
 * Host rules that need the Public Suffix List (tldts, private suffixes included, as browsers apply
 * it). Apart from ./hostname.ts because the list is about 100 kB: only the browser code that asks
 * these questions bundles it.
 */
import { getDomain, getHostname, getPublicSuffix } from "tldts";

/** The registrable domain (eTLD+1) of a URL or bare host, lower case; the host itself for IPs and single labels. */
export function registrableDomain(urlOrHost: string): string | null {
  const s = urlOrHost.trim().toLowerCase();
  if (!s) return null;
  const host = getHostname(/^[a-z][a-z0-9+.-]*:\/\//.test(s) ? s : `https://${s}`);
  if (!host) return null;
  return getDomain(host, { allowPrivateDomains: true }) ?? host.replace(/^\[|\]$/g, "");
}

/** Whether a domain is itself a public suffix ("com", "co.uk", "github.io"): nobody's site. */
export function isPublicSuffix(domain: string): boolean {
  return getPublicSuffix(domain, { allowPrivateDomains: true }) === domain;
}
