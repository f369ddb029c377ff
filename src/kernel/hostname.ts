/**
 * The host rules shared by the worker, the web client, the importers and the extension. Rules that
 * need the Public Suffix List (registrable domains) are in ./site.ts, so that the worker, which
 * never needs the list, does not bundle it.
 */

/** The URL of an address as typed: a bare domain ("example.com") is taken as https. */
function urlOf(input: string | null | undefined): URL | null {
  const trimmed = input?.trim();
  if (!trimmed) return null;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
  } catch {
    return null;
  }
}

/**
 * The one hostname normalisation, the host entries are stored and matched under (the worker's
 * matching, discovery and registry, the web client's domain_hash, the importers, the extension's
 * fill): lower case, no `www.`, no trailing dot, no port. Returns null when there is no usable
 * hostname.
 */
export function normalizeHost(input: string | null | undefined): string | null {
  const url = urlOf(input);
  if (!url) return null;
  let host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("www.")) host = host.slice(4);
  return host || null;
}

/**
 * The hostname of an address as the URL parser gives it (`www.` kept, no port), for naming a site
 * to a person or to another service rather than for matching. Null when there is none.
 */
export function hostnameOf(input: string | null | undefined): string | null {
  return urlOf(input)?.hostname || null;
}

/** The normalised host of an address that names a website: it has a dot, or it is localhost. */
export function websiteHost(input: string | null | undefined): string | null {
  const host = normalizeHost(input);
  return host && (host.includes(".") || host === "localhost") ? host : null;
}

/** The host an entry is matched under: its website's, else its URL's. */
export function entryHost(
  website: string | null | undefined,
  url: string | null | undefined,
): string | null {
  return normalizeHost(website) ?? normalizeHost(url);
}

/** Whether `pageHost` is `entryHost` or one of its subdomains (label-wise, so "xgithub.com" is not). */
export function hostCovers(entryHost: string, pageHost: string): boolean {
  return pageHost === entryHost || pageHost.endsWith(`.${entryHost}`);
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The hostnames an entry may be stored under to match a page on `host`: the host itself and each
 * parent domain down to two labels, so a login on accounts.example.com finds an entry saved for
 * example.com, but an entry for accounts.example.com is not offered on example.com.
 */
export function candidateHosts(host: string): string[] {
  if (IPV4.test(host) || host.includes(":") || !host.includes(".")) return [host];
  const labels = host.split(".");
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join("."));
  return out;
}
