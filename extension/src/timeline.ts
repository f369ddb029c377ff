/**
 * Marks of the extension's own timeline, by wall clock (`performance.timeOrigin + now()`, so the
 * service worker's, the vault document's and a page's marks line up): unlock resolved, the first
 * sync's request sent, its first page stored and indexed, a menu's lookup asked and answered. They
 * hold times and counts only, never an entry, host or secret; the bench reads them through the
 * popup's `timeline` request to say where the time after an unlock goes.
 */
export type Marks = Record<string, number>;

export class Timeline {
  private marks: Marks = {};

  /** Records `name` the first time only (the first page, the first menu), unless `again`. */
  mark(name: string, again = false): void {
    if (again || !(name in this.marks))
      this.marks[name] = performance.timeOrigin + performance.now();
  }

  /** Starts a new timeline (each unlock). */
  reset(): void {
    this.marks = {};
  }

  get all(): Marks {
    return { ...this.marks };
  }
}
