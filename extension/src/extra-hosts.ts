/**
 * The synced copy's index of entries by their extra addresses' hosts, for the local-first match:
 * those addresses are sealed, so each entry is opened once to read them, and kept by its
 * ciphertext (an entry whose `encrypted_data` did not change is not opened again). An entry that
 * does not open is left out here; `opened` in offscreen.ts decides what it may fill anyway.
 */
import type { EntrySecrets } from "../../core/crypto";
import type { LocalEntry } from "../../core/store";
import { extraHosts } from "../../core/hosts";

type Opener = (e: LocalEntry) => Promise<EntrySecrets>;

export class ExtraHosts {
  private readonly known = new Map<string, { data: string | null; hosts: string[] }>();

  /** Adds each entry under the hosts of its extra addresses to `byHost` (not twice under one host). */
  async addTo(
    byHost: Map<string, LocalEntry[]>,
    entries: LocalEntry[],
    open: Opener,
  ): Promise<void> {
    const seen = new Set<string>();
    for (const e of entries) {
      seen.add(e.id);
      let k = this.known.get(e.id);
      if (!k || k.data !== e.encrypted_data) {
        let hosts: string[] = [];
        try {
          const s = await open(e);
          hosts = extraHosts(s.urls, e.website || e.url || "");
        } catch {
          // Not readable with these keys (or a placeholder): it has no extra addresses to offer.
        }
        k = { data: e.encrypted_data, hosts };
        this.known.set(e.id, k);
      }
      for (const h of k.hosts) {
        const list = byHost.get(h) ?? [];
        if (!list.some((x) => x.id === e.id)) byHost.set(h, [...list, e]);
      }
    }
    for (const id of this.known.keys()) if (!seen.has(id)) this.known.delete(id);
  }
}
