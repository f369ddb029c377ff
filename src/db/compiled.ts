import { fillPlaceholders, type SQLWrapper } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";

const dialect = new SQLiteSyncDialect();

/**
 * A statement's SQL text, made once, and how to bind it on a D1 binding for one call. One compile
 * may serve several shapes that use some of its names each; a name the text uses but `values`
 * lacks throws (drizzle's `fillPlaceholders`), so nothing is bound as null by omission.
 */
export type Compiled<P extends string> = {
  readonly text: string;
  on(d1: D1Database, values: Partial<Record<P, unknown>>): D1PreparedStatement;
};

/**
 * Renders a query built with drizzle (its `sql.placeholder(name)` marking what varies per call)
 * to SQL text once per isolate, for statements a hot path runs on every request. Building the
 * delta pull's statements through drizzle on each request cost about 0.4 ms of a 6 ms pull on the
 * local runtime (docs/decisions/sync.md, "Sync: hot paths (delta pull, match, create, Server-Timing)"); binding a kept text costs nothing measurable.
 */
export function compile<P extends string>(query: SQLWrapper): Compiled<P> {
  const { sql: text, params } = dialect.sqlToQuery(query.getSQL());
  return {
    text,
    on: (d1, values) => d1.prepare(text).bind(...fillPlaceholders(params, values)),
  };
}
