/**
 * The one hostname normalisation, shared by the worker (matching, discovery, registry), the web
 * client (domain_hash) and the importers: lower case, no `www.`, no trailing dot, no port. Bare
 * domains ("example.com") are accepted. Returns null when there is no usable hostname.
 */
export function normalizeHost(input: string | null | undefined): string | null {
  if (!input) return null;
  const trimmed = input.trim();
  if (!trimmed) return null;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
  } catch {
    return null;
  }
  let host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("www.")) host = host.slice(4);
  return host || null;
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
