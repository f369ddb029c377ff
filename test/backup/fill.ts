import { bindingOf } from "../../src/db/shards";
import { distinctDatabases, quoted, schemaOf } from "../../src/domains/backup/databases";

/**
 * Rows for the tables the drill's API calls leave empty (mail integrations, reset jobs, outbound
 * mail, …: records whose making needs a mailbox or a browser), so that every table of the schema
 * is in the comparison. One row per such table, written on the first database where its columns
 * are satisfied; the values are made up to each column's declared type.
 */
type Column = {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
};

const valueFor = (table: string, c: Column, n: number) => {
  const type = c.type.toUpperCase();
  if (type.includes("INT")) return n;
  if (type.includes("REAL")) return n + 0.5;
  return `${table}-${c.name}-${n}`;
};

export async function fillEmptyTables(env: Record<string, unknown>): Promise<string[]> {
  const databases = await distinctDatabases(env);
  const counts = new Map<string, number>();
  for (const db of databases) {
    const d1 = bindingOf(env, db.binding);
    for (const table of (await schemaOf(d1)).tables) {
      const n =
        (await d1.prepare(`SELECT count(*) AS n FROM ${quoted(table)}`).first<number>("n")) ?? 0;
      counts.set(table, (counts.get(table) ?? 0) + n);
    }
  }
  const filled: string[] = [];
  const d1 = bindingOf(env, databases.at(-1)!.binding);
  for (const [table, n] of counts) {
    if (n > 0) continue;
    const { results } = await d1.prepare(`PRAGMA table_info(${quoted(table)})`).all<Column>();
    const columns = results.filter((c) => c.notnull || c.pk || c.dflt_value === null);
    await d1
      .prepare(
        `INSERT INTO ${quoted(table)} (${columns.map((c) => quoted(c.name)).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
      )
      .bind(...columns.map((c) => valueFor(table, c, 1)))
      .run();
    filled.push(table);
  }
  return filled;
}
