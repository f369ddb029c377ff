import { applyD1Migrations, env } from "cloudflare:test";
import { shardBindings } from "../../src/db/shards";

// Every database the worker is bound to gets every migration (issue 20: one schema everywhere);
// with one shard, DB, DB_0 and DIRECTORY are one database and the later passes find nothing to do.
const e = env as unknown as Record<string, unknown>;
for (const name of ["DB", "DIRECTORY", ...shardBindings(e)]) {
  if (e[name]) await applyD1Migrations(e[name] as D1Database, env.TEST_MIGRATIONS);
}
