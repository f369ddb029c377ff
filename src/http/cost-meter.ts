/**
 * What one request asked of the platform's metered services, counted while it ran: D1 statements
 * with the rows D1 says they read and wrote, Durable Object calls, R2 operations by billing class,
 * queue messages and outbound fetches. Work left to waitUntil after the answer is not in it.
 */
export class CostMeter {
  d1 = 0;
  rowsRead = 0;
  rowsWritten = 0;
  /** A D1 session whose results could not be read: its rows are missing, so the figures say so. */
  unmetered = false;
  durableObjects = 0;
  r2ClassA = 0;
  r2ClassB = 0;
  queue = 0;
  fetches = 0;

  /** Every statement's result in a D1 answer (one, or one per statement of a batch). */
  private results(out: unknown) {
    for (const r of Array.isArray(out) ? out : [out]) {
      const meta = (r as { meta?: { rows_read?: number; rows_written?: number } } | null)?.meta;
      this.d1++;
      this.rowsRead += meta?.rows_read ?? 0;
      this.rowsWritten += meta?.rows_written ?? 0;
    }
  }

  /**
   * Counts what a D1 session sends. A statement's `first()` and `raw()` hand back rows without
   * D1's meta, so the count is taken where the session receives D1's answer, which every statement
   * and batch of the session goes through: the runtime's own send methods on this one session
   * object (made for this request by src/db/sessions.ts), replaced on that object alone.
   */
  readonly sessionOpened = (session: object): void => {
    const s = session as Record<string, unknown>;
    let hooked = false;
    for (const name of ["_sendOrThrow", "_queryOrThrow"]) {
      const original = s[name];
      if (typeof original !== "function") continue;
      hooked = true;
      const meter = this;
      s[name] = async function (this: unknown, ...args: unknown[]) {
        const out = await (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
        meter.results(out);
        return out;
      };
    }
    if (!hooked) this.unmetered = true;
  };

  header(): string {
    return [
      `d1=${this.d1}`,
      `rows_read=${this.unmetered ? "unmetered" : this.rowsRead}`,
      `rows_written=${this.unmetered ? "unmetered" : this.rowsWritten}`,
      `do=${this.durableObjects}`,
      `r2_a=${this.r2ClassA}`,
      `r2_b=${this.r2ClassB}`,
      `queue=${this.queue}`,
      `fetch=${this.fetches}`,
    ].join(", ");
  }
}
