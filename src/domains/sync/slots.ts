/**
 * The statements of one D1 batch in order, each with the slot its result comes back in: D1 answers
 * a batch with one result per statement, by position, so a writer that decides statement by
 * statement needs each one's position to read its outcome. A slot can be kept for a statement made
 * only once every other one is known (the sync push's one insert of all its new entries sits where
 * its first create was decided); the batch cannot be taken while a kept slot is empty.
 */
export class BatchSlots<S> {
  private readonly items: (S | undefined)[] = [];
  private readonly open = new Set<number>();

  /** Adds a statement at the end; returns its slot. */
  add(statement: S): number {
    return this.items.push(statement) - 1;
  }

  /** Adds statements at the end, in order; returns their slots. */
  addAll(statements: S[]): number[] {
    return statements.map((s) => this.add(s));
  }

  /** Keeps the next slot for a statement `fill` gives later. */
  reserve(): number {
    const slot = this.items.push(undefined) - 1;
    this.open.add(slot);
    return slot;
  }

  fill(slot: number, statement: S): void {
    if (!this.open.delete(slot)) throw new Error(`batch slot ${slot} was not kept for a statement`);
    this.items[slot] = statement;
  }

  get size(): number {
    return this.items.length;
  }

  /** The batch, in slot order. */
  statements(): S[] {
    if (this.open.size > 0)
      throw new Error(`batch slots kept and never filled: ${[...this.open].join(", ")}`);
    return this.items as S[];
  }
}

/** How many rows the write in `slot` changed, from D1's answer to the batch (0: its guard held it back). */
export const changesAt = (out: unknown[], slot: number): number =>
  (out[slot] as { meta?: { changes?: number | null } } | undefined)?.meta?.changes ?? 0;
