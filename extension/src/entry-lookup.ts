/**
 * The page's candidate entries for the offscreen vault, opened: found in the synced copy while live
 * sync vouches for it, else by the server's match (the copy offline), and each held to the address
 * its own ciphertext vouches for. Fills, save offers and passkey requests all look entries up here.
 */
import { ApiClient, OfflineError } from "../../core/api";
import {
  domainOf,
  type EntrySecrets,
  type VaultKeys,
  bindsScheme,
  isBound,
  openEntry,
  placeOf,
  placeScheme,
} from "../../core/crypto";
import type { LocalEntry } from "../../core/store";
import { pageHostHashes } from "../../core/hosts";
import type { LiveSync } from "../../core/sync";
import type { Vault } from "../../core/vault";
import type { MatchSource } from "./messages";
import { entryHostsFor } from "./policy";

export type Candidate = {
  id: string;
  name: string;
  website?: string | null;
  url: string | null;
  wrapped_item_key: string | null;
  encrypted_data: string | null;
};
/** What a lookup needs of the unlocked vault (offscreen.ts holds the rest). */
export type LookupVault = {
  userId: string;
  keys: VaultKeys;
  vault: Vault;
  api: ApiClient;
  byHost: Map<string, LocalEntry[]>;
  indexedAt?: string;
  live: LiveSync;
};

/** The host an entry's envelope is bound to (envelope.ts placeOf), from its plaintext address. */
export const boundHost = (e: { website?: string | null; url?: string | null }): string | null =>
  domainOf(e.website || e.url || "") || null;

/**
 * The address an entry may fill on, all of it vouched for by the ciphertext: the host its envelope
 * opened under (a server that rewrites the plaintext address makes the envelope refuse to open),
 * with the scheme of the address sealed inside it, else (a version-3 envelope, which binds it) of
 * its plaintext address. "https://" + host when that is https, "http://" + host when http, the
 * bare host (no https promise) when it names no scheme. A version-2 entry sealed before the
 * address was sealed with it says nothing the server could not have changed (`schemeSealed`
 * false), so it is taken as https: an http page then asks first. `env` is the envelope that opened.
 */
function sealedAddress(
  e: { website?: string | null; url?: string | null },
  secrets: EntrySecrets,
  env: { wrapped_item_key: string | null; encrypted_data: string | null },
): { url: string | null; schemeSealed: boolean } {
  const host = boundHost(e);
  if (!host) return { url: null, schemeSealed: true };
  const bound =
    !!env.wrapped_item_key &&
    !!env.encrypted_data &&
    bindsScheme({ wrapped_item_key: env.wrapped_item_key, encrypted_data: env.encrypted_data });
  const scheme =
    secrets.address !== undefined
      ? /^(https?):\/\//i.exec(secrets.address.trim())?.[1]?.toLowerCase()
      : bound
        ? placeScheme(e)
        : "https";
  const url = scheme === "https" || scheme === "http" ? `${scheme}://${host}` : host;
  return { url, schemeSealed: secrets.address !== undefined || bound };
}

/**
 * During a first sync, the synced copy of a candidate as the fill index holds it: each stored page
 * joins the index as it is stored, so this is what the store holds, read without queuing behind
 * the pull's page writes (a read of the entries store waits for every write transaction begun
 * before it: hundreds of milliseconds a page under load, in front of the menu).
 */
export function firstSyncCopy(s: Pick<LookupVault, "byHost">, id: string): LocalEntry | undefined {
  for (const list of s.byHost.values()) for (const e of list) if (e.id === id) return e;
  return undefined;
}

/**
 * An entry's secrets with the address they vouch for, or null when its envelope does not open in
 * its place. The synced copy is preferred; an entry the cache does not have yet is opened from the
 * server's copy, bound envelopes only (unbound ones migrate in the web app, which re-seals them).
 */
export async function opened(
  s: LookupVault,
  c: Candidate,
): Promise<({ secrets: EntrySecrets } & ReturnType<typeof sealedAddress>) | null> {
  const local =
    s.indexedAt === undefined ? firstSyncCopy(s, c.id) : await s.vault.db.entry(s.userId, c.id);
  if (local) {
    try {
      const secrets = await s.vault.secrets(local);
      return { secrets, ...sealedAddress(local, secrets, local) };
    } catch {
      // The cached copy does not open (a server once handed it over misplaced): the server's may.
      if (
        local.encrypted_data === c.encrypted_data &&
        local.wrapped_item_key === c.wrapped_item_key
      )
        return null;
    }
  }
  if (!c.wrapped_item_key || !c.encrypted_data) return null;
  const env = { wrapped_item_key: c.wrapped_item_key, encrypted_data: c.encrypted_data };
  if (!isBound(env)) return null;
  try {
    const { secrets } = await openEntry(s.keys, placeOf(s.userId, c), env);
    return { secrets, ...sealedAddress(c, secrets, env) };
  } catch {
    // Sealed under another passphrase, or moved by the server to another entry, user or site.
    return null;
  }
}

export const cached = (s: LookupVault, pageUrl: string): Candidate[] => [
  ...new Map(
    entryHostsFor(pageUrl)
      .flatMap((h) => s.byHost.get(h) ?? [])
      .map((e) => [e.id, e]),
  ).values(),
];

/**
 * Entries for the page's host, with where they came from. Local first: while live sync says the
 * synced copy is current (connected, its cursor at the hub's clock, a pull within the safety net)
 * and its connection's session is the one in force (`inForce`), the copy answers and the server is
 * not asked, so the menu is drawn without a round trip and the page's host never leaves the
 * device. Otherwise the server answers, and offline the copy does.
 */
async function candidates(
  s: LookupVault,
  pageUrl: string,
  inForce: boolean,
  mark?: (name: string) => void,
): Promise<{ list: Candidate[]; source: MatchSource }> {
  if (inForce && s.live.covers(s.indexedAt)) return { list: cached(s, pageUrl), source: "synced" };
  try {
    const hashes = await pageHostHashes(s.keys, pageUrl);
    mark?.("match-server-asked");
    const { matches } = await s.api.match(pageUrl, hashes);
    mark?.("match-server-answered");
    return { list: matches, source: "server" };
  } catch (e) {
    if (!(e instanceof OfflineError)) throw e;
    return { list: cached(s, pageUrl), source: "cache" };
  }
}

export type Opened = NonNullable<Awaited<ReturnType<typeof opened>>>;

/**
 * The page's candidates, each with what its envelope opens to (null when it does not). A server
 * answer holding an envelope that does not open in its place is not revalidated next time: a 304
 * would confirm the very body kept (core/api/revalidate.ts). Placeholders have no envelope.
 */
export async function openedCandidates(
  s: LookupVault,
  pageUrl: string,
  inForce: boolean,
  mark?: (name: string) => void,
): Promise<{ list: { c: Candidate; o: Opened | null }[]; source: MatchSource }> {
  const { list, source } = await candidates(s, pageUrl, inForce, mark);
  const out: { c: Candidate; o: Opened | null }[] = [];
  for (const c of list) out.push({ c, o: await opened(s, c) });
  if (source === "server" && out.some(({ c, o }) => !o && c.wrapped_item_key && c.encrypted_data))
    s.api.forgetMatch(pageUrl, await pageHostHashes(s.keys, pageUrl));
  return { list: out, source };
}
