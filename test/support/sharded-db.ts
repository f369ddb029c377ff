import { resolveShard } from "../../src/db/shard-map";
import { DIRECTORY_USER_TABLES } from "../../src/db/shard-move";
import { bindingOf, directoryBinding, shardBindings } from "../../src/db/shards";

/**
 * `env.DB` for the suites' own reads and writes when the worker runs on several shards (docs/decisions/scale.md, "Scale: shards, a directory, many databases",
 * VAULT_SHARDS=3): the tests poke rows by SQL to set up states the API cannot reach and to check
 * what was stored. A statement on a directory table (shares, sharing keys, …) runs on the
 * directory; one that names a recorded user (or inserts a user's row) runs on that user's shard;
 * any other runs on every database, its rows put together. Test plumbing only: the
 * worker itself never reads `DB` while `DB_0` is bound.
 */
type Env = Record<string, unknown>;

const INSERT =
  /^\s*insert\s+(?:or\s+\w+\s+)?into\s+["`]?\w+["`]?\s*\(([^)]*)\)\s*values\s*\(([^)]*)\)/i;
const OWNER_COLUMNS = new Set(["user_id", "owner_id"]);

/** The user a plain `INSERT … (cols) VALUES (?, …)` writes for, if its owner column is a parameter. */
function insertedUser(sql: string, params: unknown[]): string | undefined {
  const m = INSERT.exec(sql);
  if (!m) return undefined;
  const cols = m[1]!.split(",").map((c) => c.trim().replace(/["`]/g, "").toLowerCase());
  const values = m[2]!.split(",").map((v) => v.trim());
  const at = cols.findIndex((c) => OWNER_COLUMNS.has(c));
  if (at < 0 || !values[at]) return undefined;
  const numbered = /^\?(\d+)$/.exec(values[at]!);
  const index = numbered
    ? Number(numbered[1]) - 1
    : values[at] === "?"
      ? values.slice(0, at).filter((v) => v === "?").length
      : -1;
  const user = params[index];
  return typeof user === "string" ? user : undefined;
}

const DIRECTORY_TABLE = new RegExp(
  `\\b(?:from|into|update|join)\\s+["\`]?(?:${DIRECTORY_USER_TABLES.map(([t]) => t).join("|")})\\b`,
  "i",
);

async function targetsOf(env: Env, sql: string, params: unknown[]): Promise<D1Database[]> {
  if (DIRECTORY_TABLE.test(sql)) return [bindingOf(env, directoryBinding(env))];
  const inserted = insertedUser(sql, params);
  if (inserted) return [bindingOf(env, await resolveShard(env, inserted, true))];
  const strings = params.filter((p): p is string => typeof p === "string" && p.length < 200);
  if (strings.length) {
    const directory = bindingOf(env, directoryBinding(env));
    const rows = await directory
      .prepare(
        `SELECT DISTINCT shard FROM user_shards WHERE user_id IN (${strings.map(() => "?").join(",")})`,
      )
      .bind(...strings)
      .all<{ shard: string }>();
    if (rows.results.length === 1) return [bindingOf(env, rows.results[0]!.shard)];
  }
  const all = [directoryBinding(env), ...shardBindings(env)].map((n) => bindingOf(env, n));
  return [...new Set(all)];
}

/** A row that found something: a count of 0 or a row of nulls loses to another database's answer. */
const found = (row: Record<string, unknown> | null) =>
  row !== null && Object.values(row).some((v) => v !== null && v !== 0);

class FanStatement {
  constructor(
    private readonly env: Env,
    readonly sql: string,
    readonly params: unknown[] = [],
  ) {}

  bind(...values: unknown[]) {
    return new FanStatement(this.env, this.sql, values);
  }

  private async each() {
    return (await targetsOf(this.env, this.sql, this.params)).map((d1) =>
      d1.prepare(this.sql).bind(...this.params),
    );
  }

  async first<T>(column?: string): Promise<T | null> {
    const rows = await Promise.all(
      (await this.each()).map((s) => s.first<Record<string, unknown>>()),
    );
    const row = rows.find(found) ?? rows.find((r) => r !== null) ?? null;
    if (row === null) return null;
    return (column === undefined ? row : row[column]) as T;
  }

  async all<T>(): Promise<D1Result<T>> {
    const results = await Promise.all((await this.each()).map((s) => s.all<T>()));
    return { ...results[0]!, results: results.flatMap((r) => r.results) };
  }

  async run<T>(): Promise<D1Result<T>> {
    const results = await Promise.all((await this.each()).map((s) => s.run<T>()));
    const changes = results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
    return { ...results[0]!, meta: { ...results[0]!.meta, changes } };
  }

  async raw<T>(): Promise<T[]> {
    return (await Promise.all((await this.each()).map((s) => s.raw<T>()))).flat();
  }
}

export function shardedTestDb(env: Env): D1Database {
  return {
    prepare: (sql: string) => new FanStatement(env, sql),
    // A batch of pokes runs statement by statement: not atomic, which no test relies on.
    batch: async (statements: FanStatement[]) => {
      const out = [];
      for (const s of statements) out.push(await s.all());
      return out;
    },
    exec: async (query: string) => {
      for (const d1 of await targetsOf(env, query, [])) await d1.exec(query);
      return { count: 0, duration: 0 };
    },
  } as unknown as D1Database;
}
