/**
 * A pull's pages on the vault page as they are stored: the list shows the first page's entries
 * while the rest of a first sync is still on its way, and grows as pages come, without reading
 * the store again (a read of thousands of entries is what the first sync must not wait for).
 */
import type { LocalEntry, PulledChange } from "../db";
import { byEntryName } from "../vault";

/**
 * `sorted` (in the vault's list order) with `changes` applied: entries they name replaced or
 * removed, new ones put in their places. Each new entry's place is found by a binary search, so a
 * page of a hundred costs a few hundred comparisons and one copy, whatever the vault's size.
 */
export function withArrivals(sorted: readonly LocalEntry[], changes: readonly PulledChange[]): LocalEntry[] {
  const latest = new Map<string, PulledChange>();
  for (const c of changes) latest.set(c.id, c);
  const kept = sorted.filter((e) => !latest.has(e.id));
  const added = [...latest.values()].filter((c): c is LocalEntry => !("tombstone" in c)).sort(byEntryName);
  const out: LocalEntry[] = [];
  let from = 0;
  for (const e of added) {
    let lo = from;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (byEntryName(kept[mid]!, e) <= 0) lo = mid + 1;
      else hi = mid;
    }
    for (let i = from; i < lo; i++) out.push(kept[i]!);
    out.push(e);
    from = lo;
  }
  for (let i = from; i < kept.length; i++) out.push(kept[i]!);
  return out;
}

/** Gathers the pages of a pull between two paints; `take` hands over what came since the last take. */
export class Arrivals {
  private changes: PulledChange[] = [];
  private taken = 0;

  add(changes: readonly PulledChange[]) {
    this.changes.push(...changes);
  }

  /** The store is being read again: what arrives from now on is applied over that read. */
  restart() {
    this.changes = [];
    this.taken = 0;
  }

  /** Every change since the last `restart` (for a read that may have started before some were stored). */
  all(): PulledChange[] {
    this.taken = this.changes.length;
    return this.changes;
  }

  take(): PulledChange[] {
    const out = this.changes.slice(this.taken);
    this.taken = this.changes.length;
    return out;
  }
}
