/**
 * The worker suite's files that the three-shard pass runs (docs/decisions/operations.md, "Operations: the
 * three-shard pass runs the files that place data"). Computed from the sources at each run, so a
 * domain that starts reaching the directory or every shard joins the pass by itself.
 *
 * Domain code reaches D1 only through `dbFor(env, user)`, `directoryDb(env)` and `eachShard(env)`
 * (src/db/client.ts; nothing else reads `env.DB`). A domain that uses only `dbFor` for the caller
 * runs the same statements whichever shard holds the caller, so on one database or three its
 * tests can fail only in the same ways. What three shards can show that one cannot: a table read
 * from the directory instead of a shard or the other way round, a job that must visit every shard,
 * a row of one user looked for on another's shard. Those need the directory or every shard, so:
 * - test/db: the router, the map, moves (which need two shards);
 * - test/<domain> for every src/domains/<domain> that calls `directoryDb` or `eachShard`;
 * - every file that runs the worker's cron or queue handlers (src/index.ts: they visit every shard
 *   and the directory's mail outbox);
 * - any other test file that names shards or the directory itself.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const REACHES_PLACEMENT = /\b(directoryDb|eachShard)\b/;
const NAMES_PLACEMENT =
  /\b(shards?|DIRECTORY|directoryDb|eachShard|VAULT_SHARDS)\b|\b(scheduled|queue)!?\(/i;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** The test files (paths relative to `root`) the three-shard pass runs. */
export function shardPassFiles(root: string): string[] {
  const domains = readdirSync(join(root, "src/domains")).filter((d) =>
    files(join(root, "src/domains", d)).some(
      (f) => f.endsWith(".ts") && REACHES_PLACEMENT.test(readFileSync(f, "utf8")),
    ),
  );
  const dirs = ["test/db/", ...domains.map((d) => `test/${d}/`)];
  return files(join(root, "test"))
    .map((f) => f.slice(root.length + 1))
    .filter(
      (f) =>
        f.endsWith(".test.ts") &&
        (dirs.some((d) => f.startsWith(d)) ||
          NAMES_PLACEMENT.test(readFileSync(join(root, f), "utf8"))),
    );
}
