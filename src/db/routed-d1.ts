import { bindingOf } from "./shards";
import { isWrite, resolveShard } from "./shard-map";

/**
 * A D1Database for one user whose shard is resolved when a statement first runs, not when the
 * handle is made: `dbFor` stays synchronous for every repo and service (docs/decisions/scale.md, "Scale: shards, a directory, many databases"), and a request
 * that touches no data never reads the map.
 */
type Target = D1Database;

class RoutedStatement {
  constructor(
    private readonly route: UserRoute,
    readonly sql: string,
    private readonly params: unknown[] = [],
  ) {}

  bind(...values: unknown[]) {
    return new RoutedStatement(this.route, this.sql, values);
  }

  /** The same statement prepared on the resolved database (also used by batch). */
  on(d1: Target): D1PreparedStatement {
    return d1.prepare(this.sql).bind(...this.params);
  }

  private async real() {
    return this.on(await this.route.target(isWrite(this.sql)));
  }

  async first<T>(column?: string): Promise<T | null> {
    const s = await this.real();
    return column === undefined ? s.first<T>() : s.first<T>(column);
  }

  async all<T>() {
    return (await this.real()).all<T>();
  }

  async run<T>() {
    return (await this.real()).run<T>();
  }

  async raw<T>(options?: { columnNames?: boolean }) {
    const s = await this.real();
    return options?.columnNames ? s.raw<T>({ columnNames: true }) : s.raw<T>();
  }
}

class UserRoute {
  constructor(
    private readonly env: Record<string, unknown>,
    private readonly userId: string,
  ) {}

  /**
   * Resolved again for every statement, not once per handle: a handle can live for minutes (a
   * reset task's run), and a move may switch the user's shard meanwhile. A cache hit is a Map lookup.
   */
  async target(write: boolean): Promise<Target> {
    return bindingOf(this.env, await resolveShard(this.env, this.userId, write));
  }

  prepare(sql: string) {
    return new RoutedStatement(this, sql);
  }

  async batch<T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    const routed = statements as unknown as RoutedStatement[];
    const d1 = await this.target(
      routed.some((s) => !(s instanceof RoutedStatement) || isWrite(s.sql)),
    );
    return d1.batch<T>(
      routed.map((s) =>
        s instanceof RoutedStatement ? s.on(d1) : (s as unknown as D1PreparedStatement),
      ),
    );
  }

  async exec(query: string) {
    return (await this.target(true)).exec(query);
  }
}

/** The user's database as drizzle and the raw helpers (rawD1) see it. */
export function routedD1(env: Record<string, unknown>, userId: string): D1Database {
  return new UserRoute(env, userId) as unknown as D1Database;
}
