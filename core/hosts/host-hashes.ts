/**
 * Blind host hashes for an entry's extra addresses: the server matches an entry by its own
 * website's host (plaintext), but its other addresses are sealed, so the client sends the keyed
 * hash of each one's host (`host_hashes`, as `domain_hash` is made) and a page lookup names the
 * hashes of the page's host and each parent domain. The server compares hashes it cannot make.
 */
import { candidateHosts, normalizeHost } from "../../src/kernel/hostname";
import { domainHash, domainOf, type VaultKeys } from "../crypto";
import type { EntryUrl, MatchRule } from "../entry";

/** As many as the server takes for one entry (src/domains/passwords/hosts.ts). */
export const MAX_HOST_HASHES = 20;

/**
 * Rules whose address names the host it matches on. A regular expression names none (and is not
 * run by the extension), and `never` is kept for reference only: neither is indexed.
 */
const HOSTED: ReadonlySet<MatchRule> = new Set(["domain", "host", "starts_with", "exact"]);

/** The distinct hosts of the extra addresses that can match a page, the main host left out (it matches on its own). */
export function extraHosts(urls: readonly EntryUrl[] | undefined, mainAddress: string): string[] {
  const main = domainOf(mainAddress);
  const out = new Set<string>();
  for (const u of urls ?? []) {
    const host = HOSTED.has(u.match) ? normalizeHost(u.url) : null;
    if (host && host !== main) out.add(host);
  }
  return [...out].slice(0, MAX_HOST_HASHES);
}

/** What a create, update or import sends as `host_hashes`. */
export function hostHashes(
  keys: VaultKeys,
  urls: readonly EntryUrl[] | undefined,
  mainAddress: string,
): Promise<string[]> {
  return Promise.all(extraHosts(urls, mainAddress).map((h) => domainHash(keys, h)));
}

/** The hashes a match request names for a page: its host and each parent domain, as the server's match walks them. */
export function pageHostHashes(keys: VaultKeys, pageUrl: string): Promise<string[]> {
  const host = normalizeHost(pageUrl);
  return Promise.all(
    (host ? candidateHosts(host) : []).slice(0, MAX_HOST_HASHES).map((h) => domainHash(keys, h)),
  );
}
