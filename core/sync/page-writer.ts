/**
 * A pull's pages on their way into the store, written behind the parse: the reader hands each page
 * here as soon as it is parsed (and may tell the page of it at once), and waits only when too many
 * are parsed and not yet stored. On a new browser's first sync the store's writes were most of the
 * pull's time, and the list waited for each page's commit before it showed its rows.
 *
 * The writes stay in the pull's order, one transaction after the other, each with the position
 * after its last page: what the store holds is always a prefix of the pull, so a cut pull resumes
 * after the last page stored, never past one that was lost. When the store falls behind, the pages
 * waiting are written together in one transaction (fewer commits, the position of the last one).
 */
import type { LocalDb, LocalEntry, PulledChange } from "../store";

/**
 * Entries parsed ahead of the store at most (counted by whole pages: the reader waits before the
 * next page once this many wait): what the reader holds beyond what the store has, under 10 MiB of
 * text at the vault bench's entries, so memory stays bounded by this whatever the vault's size.
 * A 10,000-entry vault is listed without waiting for the store; a larger one waits for it past that.
 */
export const ENTRIES_AHEAD = 10_000;
/** Entries written in one transaction at most, when several pages wait (a page larger goes alone). */
const ENTRIES_PER_WRITE = 2_000;

type Waiting = {
  changes: PulledChange[];
  resume: string;
  stored: () => void;
  lost: (e: unknown) => void;
};

export class PageWriter {
  private readonly queue: Waiting[] = [];
  private writing: Promise<void> | null = null;
  /** Set by a failed write: no later page is written (the store keeps the prefix it has). */
  private failure: { e: unknown } | null = null;
  /** Entries of the pages handed over and not yet settled (stored or lost). */
  private unsettled = 0;
  private wake: (() => void) | null = null;

  constructor(
    private readonly db: LocalDb,
    private readonly userId: string,
    private readonly removed: Map<string, LocalEntry> | null,
  ) {}

  /**
   * Queues a page; resolves once the store holds it, rejects if it never will (an earlier or its
   * own write failed). The caller waits for `room` before handing over the next.
   */
  add(changes: PulledChange[], resume: string): Promise<void> {
    const stored = new Promise<void>((resolve, reject) => {
      this.unsettled += changes.length;
      const settle = () => {
        this.unsettled -= changes.length;
        const w = this.wake;
        this.wake = null;
        w?.();
      };
      this.queue.push({
        changes,
        resume,
        stored: () => (settle(), resolve()),
        lost: (e) => (settle(), reject(e)),
      });
    });
    // A page nobody waits on (a listener that ignores it) must not report an unhandled rejection.
    stored.catch(() => undefined);
    this.writing ??= this.drain();
    return stored;
  }

  /** Resolves when fewer than ENTRIES_AHEAD entries wait for the store; rejects once a write failed. */
  async room(): Promise<void> {
    while (this.unsettled >= ENTRIES_AHEAD && !this.failure)
      await new Promise<void>((r) => (this.wake = r));
    if (this.failure) throw this.failure.e;
  }

  /** Resolves when every page handed over is stored; rejects with the first write's failure. */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failure) throw this.failure.e;
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      let n = 1;
      for (
        let size = this.queue[0]!.changes.length;
        n < this.queue.length && size + this.queue[n]!.changes.length <= ENTRIES_PER_WRITE;
        n++
      )
        size += this.queue[n]!.changes.length;
      const batch = this.queue.splice(0, n);
      if (this.failure) {
        for (const p of batch) p.lost(this.failure.e);
        continue;
      }
      try {
        const changes = batch.length === 1 ? batch[0]!.changes : batch.flatMap((p) => p.changes);
        await this.db.applyPage(
          this.userId,
          changes,
          batch[batch.length - 1]!.resume,
          this.removed,
        );
        for (const p of batch) p.stored();
      } catch (e) {
        this.failure = { e };
        for (const p of batch) p.lost(e);
      }
    }
    this.writing = null;
  }
}
