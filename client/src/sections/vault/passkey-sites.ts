/**
 * The registry's word on which sites offer passkeys, for the entry detail's "This site supports
 * passkeys". The built-in registry carries no passkey data; an operator sets it per site (the
 * admin registry's `passkey_support_type` and `passkey_setup_url`), so it is read from the server,
 * once per page: the whole list, matched here, so the server never learns which entry is open.
 */
import type { ApiClient, WireResponse } from "../../../../core/api";
import { candidateHosts, normalizeHost } from "../../../../src/kernel/hostname";

export const PASSKEY_SITE_ENDPOINTS = {
  passkeySites: { method: "GET", path: "/api/registry/passkeys", reads: ["sites", "count"] },
} as const;

export type PasskeySite = WireResponse<"/api/registry/passkeys", "get">["sites"][number];
export type PasskeySupport = PasskeySite["passkey_support_type"];

let loaded: { api: ApiClient; sites: Promise<Map<string, PasskeySite>> } | null = null;

/** The list, fetched once per page and account; a failed read is tried again next time. */
function sitesOf(api: ApiClient): Promise<Map<string, PasskeySite>> {
  if (loaded?.api === api) return loaded.sites;
  const sites = api
    .request(PASSKEY_SITE_ENDPOINTS.passkeySites)
    .then((r) => new Map(r.sites.map((s) => [s.domain, s])));
  loaded = { api, sites };
  sites.catch(() => {
    if (loaded?.sites === sites) loaded = null;
  });
  return sites;
}

/** An https address, or null: a setup link is never anything else (no javascript:, no http). */
export function httpsUrl(raw: string | null | undefined): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    return u.protocol === "https:" ? u.href : null;
  } catch {
    return null;
  }
}

/** The registry's passkey site for an entry's address: its host, else the nearest parent listed. */
export async function passkeySiteFor(api: ApiClient, address: string): Promise<PasskeySite | null> {
  const host = normalizeHost(address);
  if (!host) return null;
  const sites = await sitesOf(api);
  for (const h of candidateHosts(host)) {
    const s = sites.get(h);
    if (s) return s;
  }
  return null;
}
