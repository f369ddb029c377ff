import type { SQL } from "drizzle-orm";
import type { Db } from "./client";

/**
 * The raw D1 binding behind a drizzle client, for the few statements drizzle cannot express
 * (conditional inserts with `WHERE NOT EXISTS`, batches mixing raw and built statements).
 */
export const rawD1 = (db: Db): D1Database => (db as unknown as { $client: D1Database }).$client;

/** How many rows a write touched: 0 means a guard in its WHERE did not hold (a lost race). */
export const rowsChanged = (res: { meta: { changes?: number | null } }): number =>
  res.meta.changes ?? 0;

/**
 * drizzle's raw `db.run(sql)` has no prepared D1 statement, so `db.batch` cannot bind it; this
 * gives it one, keeping the raw query usable both alone and inside a batch.
 */
export function batchable(db: Db, query: SQL) {
  const raw = db.run(query);
  const prepared = raw as unknown as { stmt: D1PreparedStatement; getQuery(): { sql: string } };
  prepared.stmt = rawD1(db).prepare(prepared.getQuery().sql);
  return raw;
}
