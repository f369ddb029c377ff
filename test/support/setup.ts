import { applyD1Migrations, env } from "cloudflare:test";
import { shardBindings } from "../../src/db/shards";
import { shardedTestDb } from "./sharded-db";

// Every database the worker is bound to gets every migration (docs/decisions/scale.md, "Scale: shards, a directory, many databases": one schema everywhere);
// with one shard, DB, DB_0 and DIRECTORY are one database and the later passes find nothing to do.
const e = env as unknown as Record<string, unknown>;
// The binding itself, kept aside when an earlier file of this isolate replaced DB below.
e.TEST_DB_BINDING ??= e.DB;
// Once per runtime: the files of the shared runtime (vitest.config.mts) keep one env and one D1, so
// after its first file every later pass found every migration applied (one to three queries per
// database, per file, for nothing).
if (!e.TEST_MIGRATED) {
  for (const name of ["TEST_DB_BINDING", "DIRECTORY", ...shardBindings(e)]) {
    if (e[name]) await applyD1Migrations(e[name] as D1Database, env.TEST_MIGRATIONS);
  }
  e.TEST_MIGRATED = true;
}
// On several shards the suites' own SQL goes where the rows are (test/support/sharded-db.ts).
if (shardBindings(e).length > 1) e.DB = shardedTestDb(e);
