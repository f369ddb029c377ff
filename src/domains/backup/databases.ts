import { bindingOf, directoryBinding, shardBindings } from "../../db/shards";

/**
 * What a backup reads of the deployment's D1 databases, and what a restore writes back: each
 * database once (bindings naming the same database are aliases), its tables and its triggers, as
 * SQLite itself lists them, so a table added by a later migration is in the next backup without a
 * change here.
 */

/** One database of a backup: the binding it was read through and the others naming it too. */
export type DatabaseInfo = {
  binding: string;
  aliases: string[];
  tables: string[];
  /** `CREATE TRIGGER` statements, as sqlite_master holds them: a restore drops them while it writes. */
  triggers: { name: string; sql: string }[];
};

/**
 * Not data: SQLite's and D1's own tables, the migrations log (the schema a backup needs is named
 * in its manifest instead) and the identity row, which belongs to the database, not its contents.
 */
const NOT_DATA = /^(sqlite_|_cf_|d1_migrations$|database_identity$)/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A table or column name inside SQL: only plain identifiers ever come from sqlite_master here. */
export function quoted(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`unexpected identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

async function identityOf(d1: D1Database): Promise<string> {
  await d1
    .prepare("INSERT OR IGNORE INTO database_identity (singleton, id) VALUES (1, ?)")
    .bind(crypto.randomUUID())
    .run();
  const id = await d1
    .prepare("SELECT id FROM database_identity WHERE singleton = 1")
    .first<string>("id");
  if (!id) throw new Error("database identity missing");
  return id;
}

/** The directory first, then the shards in order; a binding whose database is already listed joins its aliases. */
export async function distinctDatabases(
  env: Record<string, unknown>,
): Promise<{ binding: string; aliases: string[] }[]> {
  const seen = new Map<string, { binding: string; aliases: string[] }>();
  for (const name of new Set([directoryBinding(env), ...shardBindings(env)])) {
    const id = await identityOf(bindingOf(env, name));
    const hit = seen.get(id);
    if (hit) hit.aliases.push(name);
    else seen.set(id, { binding: name, aliases: [] });
  }
  return [...seen.values()];
}

export async function schemaOf(d1: D1Database): Promise<Pick<DatabaseInfo, "tables" | "triggers">> {
  const { results } = await d1
    .prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'trigger') ORDER BY type, name",
    )
    .all<{ type: string; name: string; sql: string }>();
  const data = results.filter((r) => !NOT_DATA.test(r.name));
  return {
    tables: data.filter((r) => r.type === "table").map((r) => r.name),
    triggers: data.filter((r) => r.type === "trigger").map((r) => ({ name: r.name, sql: r.sql })),
  };
}

/** The migrations applied, in order: a restore needs the target at the same schema. */
export async function migrationsOf(d1: D1Database): Promise<string[]> {
  const { results } = await d1
    .prepare("SELECT name FROM d1_migrations ORDER BY id")
    .all<{ name: string }>();
  return results.map((r) => r.name);
}
