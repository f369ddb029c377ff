/**
 * A pull's pages on the vault page as they are stored: the list shows the first page's entries
 * while the rest of a first sync is still on its way, and grows as pages come, without reading
 * the store again (a read of thousands of entries is what the first sync must not wait for).
 */
import type { LocalEntry, PulledChange } from "../db";
import type { PageListener } from "../sync-engine";
import { byEntryName } from "../vault";

/**
 * How often the list takes in a pull's pages as they are stored (the first page at once): each
 * time costs a pass over the list (its order, keys and rows), on the thread that parses the pull.
 */
const ARRIVALS_MS = 500;

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

/**
 * Follows a sync engine's pages for the vault page: gathers them, and hands what came since the
 * last time to `take` a few times a second (at once while the list is empty). `ready` says whether
 * the page has read the store once (until then its first read has them).
 */
export class Arrivals {
  private changes: PulledChange[] = [];
  private taken = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly stopPages: () => void;

  constructor(
    engine: { onPage(listener: PageListener): () => void },
    private readonly host: { ready(): boolean; empty(): boolean; take(changes: PulledChange[]): void },
  ) {
    this.stopPages = engine.onPage((changes) => {
      this.changes.push(...changes);
      if (!host.ready() || this.timer !== undefined) return;
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          if (host.ready()) host.take(this.take());
        },
        host.empty() ? 0 : ARRIVALS_MS,
      );
    });
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

  private take(): PulledChange[] {
    const out = this.changes.slice(this.taken);
    this.taken = this.changes.length;
    return out;
  }

  stop() {
    this.stopPages();
    clearTimeout(this.timer);
  }
}
