/**
 * The fill index: the synced copy's entries by the host their envelope is bound to (and by their
 * extra addresses' hosts), which the local-first match reads (entry-lookup.ts). Rebuilt from the
 * store after each sync run; during a first sync each stored page is added as it arrives, so what
 * has arrived can be looked up (and counted) before the pull ends.
 */
import type { LocalEntry, PulledChange } from "../../core/store";
import type { Vault } from "../../core/vault";
import { boundHost } from "./entry-lookup";
import type { ExtraHosts } from "./extra-hosts";
import type { FillHealth } from "./fill-health";

export type IndexedVault = {
  userId: string;
  vault: Vault;
  byHost: Map<string, LocalEntry[]>;
  extra: ExtraHosts;
  health: FillHealth;
  indexedAt?: string;
};

/** Adds `entries` under their bound host (an entry already there under that host is replaced). */
function addBound(byHost: Map<string, LocalEntry[]>, entries: LocalEntry[]): void {
  for (const e of entries) {
    const h = boundHost(e);
    if (!h) continue;
    const list = byHost.get(h);
    if (!list) byHost.set(h, [e]);
    else {
      const at = list.findIndex((x) => x.id === e.id);
      if (at >= 0) list[at] = e;
      else list.push(e);
    }
  }
}

export async function reindex(s: IndexedVault): Promise<void> {
  // By the host the envelope is bound to: a page looks up its own host and each parent, as the
  // server's match does; the verdict then holds each candidate to the host it opened under.
  // The cursor first: a pull that lands while the entries are read leaves the index marked with
  // the older cursor, so it is never taken for more current than it is.
  const indexedAt = await s.vault.db.meta<string>(`cursor:${s.userId}`);
  const byHost = new Map<string, LocalEntry[]>();
  const entries = await s.vault.db.entries(s.userId);
  // The fill warnings' reuse count follows the copy, in the background (fill-health.ts).
  void s.health.refresh(entries, async (e) => (await s.vault.secrets(e)).password);
  addBound(byHost, entries);
  // And by the hosts of their extra addresses, read from the opened entries (sealed, unlike the main one).
  await s.extra.addTo(byHost, entries, (e) => s.vault.secrets(e));
  s.byHost = byHost;
  s.indexedAt = indexedAt;
}

/**
 * A page of a first sync, stored: its entries join the index at once. Only while the index holds
 * no complete pull (no cursor): a first sync lists each entry once and deletes nothing, and the
 * index stays marked as never current, so a menu still asks the server for what has not arrived.
 * A later pull's pages wait for the rebuild at its end (they may move or delete entries).
 */
export function indexPage(s: IndexedVault, changes: PulledChange[]): void {
  if (s.indexedAt !== undefined) return;
  addBound(
    s.byHost,
    changes.filter((c): c is LocalEntry => !("tombstone" in c)),
  );
}

/** How many entries the index holds (each once, whatever hosts it is under). */
export function indexedCount(s: IndexedVault): number {
  const ids = new Set<string>();
  for (const list of s.byHost.values()) for (const e of list) ids.add(e.id);
  return ids.size;
}
