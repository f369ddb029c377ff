import { applyD1Migrations, env } from "cloudflare:test";
import { shardBindings } from "../../src/db/shards";
import { shardedTestDb } from "./sharded-db";

// Every database the worker is bound to gets every migration (docs/decisions.md, Scale: shards, a directory, many databases: one schema everywhere);
// with one shard, DB, DB_0 and DIRECTORY are one database and the later passes find nothing to do.
const e = env as unknown as Record<string, unknown>;
// The binding itself, kept aside when an earlier file of this isolate replaced DB below.
e.TEST_DB_BINDING ??= e.DB;
for (const name of ["TEST_DB_BINDING", "DIRECTORY", ...shardBindings(e)]) {
  if (e[name]) await applyD1Migrations(e[name] as D1Database, env.TEST_MIGRATIONS);
}
// On several shards the suites' own SQL goes where the rows are (test/support/sharded-db.ts).
if (shardBindings(e).length > 1) e.DB = shardedTestDb(e);
