import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

/** All the database layer needs of the worker's bindings. */
export type DbBindings = { DB: D1Database };

/**
 * The one place a repo gets its database. It is keyed by the user so that spreading users over
 * several D1 databases later changes this function alone (see docs/scale.md).
 */
export function dbFor(env: DbBindings, _userId: string): Db {
  return drizzle(env.DB, { schema });
}

/** For work that spans users (scheduled purges, admin registry); never for one user's records. */
export function globalDb(env: DbBindings): Db {
  return drizzle(env.DB, { schema });
}
