/**
 * A pull's pages on the vault page as they are parsed: the list shows the first page's entries
 * while the rest of a first sync is still on its way, and grows as pages come, without reading
 * the store again (a read of thousands of entries is what the first sync must not wait for), nor
 * waiting for the store's writes. Like any optimistic list, it may show a page the store does not
 * hold yet; the store stays the truth (a pull cut before a page was stored pulls it again).
 */
import { type LocalEntry, type PulledChange, byEntryName } from "../../../../core/store";
import type { PageListener } from "../../../../core/sync";
import { slicer, sortInSlices } from "../../../../core/vault";

/**
 * How often the list is drawn again while a pull's pages arrive (the first page at once): each
 * drawing makes the list's table again from every entry and paints a frame.
 */
const DRAW_MS = 500;
/**
 * How often the pages parsed since the last time are merged into the list's entries, in between.
 * A merge costs comparisons of names, about its pages' entries times the log of the list's length:
 * merged once per drawing, the pages of half a second were one task of 10-20 ms of CPU at 10,000
 * entries, which a machine busy with the pull stretches past 50 ms; a few times as often, each
 * task is a few milliseconds, for about the same comparisons in all.
 */
const MERGE_MS = 125;

/**
 * `sorted` (in the vault's list order) with `changes` applied: entries they name replaced or
 * removed, new ones put in their places. The new ones are sorted (pages come sorted from the pull
 * worker, so that is a merge of runs) and each one's place is found by a galloping search from the
 * last one's: k new entries among n cost about 2k·log(n/k) comparisons of names, each an
 * `Intl.Collator` call and the costliest thing an arrival did on the page.
 */
export function withArrivals(
  sorted: readonly LocalEntry[],
  changes: readonly PulledChange[],
): LocalEntry[] {
  const latest = new Map<string, PulledChange>();
  for (const c of changes) latest.set(c.id, c);
  const kept = sorted.filter((e) => !latest.has(e.id));
  const added = [...latest.values()]
    .filter((c): c is LocalEntry => !("tombstone" in c))
    .sort(byEntryName);
  const out: LocalEntry[] = [];
  let from = 0;
  for (const e of added) {
    const at = placeAfter(kept, from, e);
    for (let i = from; i < at; i++) out.push(kept[i]!);
    out.push(e);
    from = at;
  }
  for (let i = from; i < kept.length; i++) out.push(kept[i]!);
  return out;
}

/**
 * `all` (the store as just read) in the list's order, taking the order from `previous` (the
 * snapshot the list was drawn from, in that order) wherever an entry kept its name: after a first
 * sync the arrivals already hold every entry in order, and sorting 10,000 names again with the
 * collator was the longest stretch of the paint after the pull. What is new or renamed is sorted
 * in slices and merged in. The order is the same as sorting `all` afresh: the entries kept are a
 * part of a sorted list, so in order, and their places depend on the name and id alone.
 */
export async function inOrderOf(
  all: readonly LocalEntry[],
  previous: readonly LocalEntry[],
): Promise<LocalEntry[]> {
  // Both passes yield: at 10,000 entries they were one task of about 7 ms idle (Node), on the
  // page's thread while the pass that opens entries keeps the cores busy after a first sync.
  const clock = slicer();
  const fresh = new Map<string, LocalEntry>();
  for (const e of all) {
    if (clock.due()) await clock.yield();
    fresh.set(e.id, e);
  }
  const kept: LocalEntry[] = [];
  for (const e of previous) {
    if (clock.due()) await clock.yield();
    const now = fresh.get(e.id);
    if (!now || now.name !== e.name) continue;
    kept.push(now);
    fresh.delete(e.id);
  }
  if (!fresh.size) return kept;
  return withArrivals(kept, await sortInSlices([...fresh.values()], byEntryName));
}

/** The first place at or after `from` whose entry sorts after `e` (a galloping, then a binary search). */
function placeAfter(kept: readonly LocalEntry[], from: number, e: LocalEntry): number {
  let step = 1;
  while (from + step <= kept.length && byEntryName(kept[from + step - 1]!, e) <= 0) step *= 2;
  // kept[from + step/2 - 1] sorts at or before e (when step > 1); kept[from + step - 1], if any, after it.
  let lo = from + (step >>> 1);
  let hi = Math.min(kept.length, from + step - 1);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (byEntryName(kept[mid]!, e) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Follows a sync engine's pages for the vault page: gathers them, merges what came since the last
 * time a few times a second (`merge`) and has the list drawn twice a second (`draw`), both at
 * once while the list is empty. `ready` says whether the page has read the store once (until then
 * its first read has them).
 */
export class Arrivals {
  private changes: PulledChange[] = [];
  /** Pages told of and not stored yet, in the pull's order: a read of the store lacks them. */
  private unstored: PulledChange[][] = [];
  private taken = 0;
  private mergeTimer: ReturnType<typeof setTimeout> | undefined;
  private drawTimer: ReturnType<typeof setTimeout> | undefined;
  /** Whether a merge changed the list since it was last drawn. */
  private merged = false;
  private readonly stopPages: () => void;

  constructor(
    engine: { onPage(listener: PageListener): () => void },
    private readonly host: {
      ready(): boolean;
      empty(): boolean;
      merge(changes: PulledChange[]): void;
      draw(first: boolean): void;
    },
  ) {
    this.stopPages = engine.onPage((changes, stored) => {
      this.changes.push(...changes);
      this.unstored.push(changes);
      const settled = () => void (this.unstored = this.unstored.filter((p) => p !== changes));
      stored.then(settled, settled);
      if (!host.ready() || this.mergeTimer !== undefined) return;
      this.mergeTimer = setTimeout(() => this.mergeNow(), host.empty() ? 0 : MERGE_MS);
    });
  }

  /** Merges what came since the last time; the list's first entries are drawn at once, the rest at the next drawing. */
  private mergeNow() {
    clearTimeout(this.mergeTimer);
    this.mergeTimer = undefined;
    if (!this.host.ready()) return;
    const changes = this.take();
    if (!changes.length) return;
    const first = this.host.empty();
    this.host.merge(changes);
    this.merged = true;
    if (first) this.drawNow(true);
    else this.drawTimer ??= setTimeout(() => this.drawNow(false), DRAW_MS);
  }

  private drawNow(first: boolean) {
    clearTimeout(this.drawTimer);
    this.drawTimer = undefined;
    if (!this.merged || !this.host.ready()) return;
    this.merged = false;
    this.host.draw(first);
  }

  /**
   * What came since the last time, merged and drawn at once rather than at the next tick (the pull
   * has ended: its last pages are listed now, not after the store's read that follows, seconds at
   * 10,000 entries).
   */
  flush() {
    this.mergeNow();
    this.drawNow(false);
  }

  /**
   * The store is being read again: what arrives from now on is applied over that read, and so are
   * the pages told of that the store does not hold yet (without them the list would lose rows).
   */
  restart() {
    this.changes = this.unstored.flat();
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
    clearTimeout(this.mergeTimer);
    clearTimeout(this.drawTimer);
  }
}
