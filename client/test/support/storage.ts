import { readdirSync, statSync } from "node:fs";
import { server } from "./server";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** Every file of the suite's wrangler state (its D1 databases and R2 objects), for scans of what the server holds. */
export function stateFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(server().workerState);
  return files;
}

/**
 * Runs one SQL statement on the local D1 of the suite's wrangler dev and returns its rows, through
 * SQLite itself on the database's file: the worker's runtime holds the same file in WAL mode, and
 * SQLite's own locking orders the two writers as it does for `wrangler d1 execute --local` (which
 * opens this file from a runtime of its own, 5 s or more per statement before, tens under load).
 * wrangler.toml binds one local database (DB, DB_0 and DIRECTORY share its id), so one file.
 */
export function sqlOnWorkerState<T>(sql: string): T[] {
  const dir = join(server().workerState, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (files.length !== 1)
    throw new Error(
      `expected the one local D1 database in ${dir}, found: ${files.join(", ") || "none"}`,
    );
  const db = new DatabaseSync(join(dir, files[0]!), { timeout: 10_000 });
  try {
    const statement = db.prepare(sql);
    return (
      /^\s*(select|with|pragma)\b/i.test(sql) || /\breturning\b/i.test(sql)
        ? statement.all()
        : (statement.run(), [])
    ) as T[];
  } finally {
    db.close();
  }
}
