/**
 * The phases of one request, reported in the `Server-Timing` header (W3C Server Timing), which
 * browsers show in their developer tools. Workers advance the clock only across I/O, so in
 * production a phase that is pure computation reads 0; database, rate-limiter and key fetches are
 * measured as they are.
 */
export class Timing {
  private readonly phases = new Map<string, { ms: number; count: number }>();

  add(name: string, ms: number): void {
    const p = this.phases.get(name) ?? { ms: 0, count: 0 };
    p.ms += ms;
    p.count++;
    this.phases.set(name, p);
  }

  async time<T>(name: string, work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.add(name, performance.now() - start);
    }
  }

  header(): string {
    return [...this.phases]
      .map(
        ([name, p]) =>
          `${name};dur=${p.ms.toFixed(1)}${p.count > 1 ? `;desc="${p.count} calls"` : ""}`,
      )
      .join(", ");
  }
}
