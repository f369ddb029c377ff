import { conflict, validationError } from "../lib/errors";
import { forgetShard, shardCacheMs } from "./shard-map";
import { bindingOf, directoryBinding, pickShard, shardBindings } from "./shards";

/**
 * Moving one user to another shard while the service runs (docs/decisions/scale.md, "Scale: shards, a directory, many databases"):
 *
 *   1. mark the map row `moving_to`: from then on a write for the user waits (src/db/shard-map.ts);
 *   2. wait out the isolates' map caches, so no write is still headed for the old shard;
 *   3. copy every row of the user to the new shard (the target's rows of the user are cleared
 *      first, so a copy cut short by a crash is simply done again);
 *   4. switch the map (`shard` = new, `cleanup_from` = old): the waiting writes go on, to the new shard;
 *   5. wait out the caches again, so reads that still look at the old shard find the rows there;
 *   6. delete the user's rows on the old shard, then clear `cleanup_from`.
 *
 * Every step is repeatable and the map row says which one was reached, so running the move again
 * after a crash at any point finishes it. Until then a crash between 1 and 4 holds the user's
 * writes (each waits up to a minute, then is refused with 503); a copy that fails with an error
 * instead unmarks the user at once.
 */

/** Every table holding one user's rows, with the column naming the user; the move copies these. */
export const USER_TABLES: readonly (readonly [table: string, column: string])[] = [
  // Before passwords: deleting those rows drops their host hashes by trigger, which would then go
  // uncounted; copied first, they wait for their entries in the same copy.
  ["password_hosts", "user_id"],
  ["passwords", "user_id"],
  ["password_totp", "user_id"],
  ["sync_clocks", "user_id"],
  ["vault_items", "user_id"],
  ["notes", "user_id"],
  ["attachments", "user_id"],
  ["devices", "user_id"],
  ["audit_events", "user_id"],
  ["notifications", "user_id"],
  ["push_subscriptions", "user_id"],
  ["account_keys", "user_id"],
  ["two_factor", "user_id"],
  ["two_factor_recovery_codes", "user_id"],
  ["two_factor_sign_ins", "user_id"],
  ["dpop_proofs", "user_id"],
  ["identities", "user_id"],
  ["mail_integrations", "user_id"],
  ["discovered_accounts", "user_id"],
  ["reset_jobs", "user_id"],
  ["session_shares", "owner_id"],
  ["secure_links", "owner_id"],
  ["secure_link_codes", "owner_id"],
  // Last: triggers on passwords, notifications and identities keep it, so copying those rows made
  // one already, which the source's then replaces (and deleting those rows first leaves none behind).
  ["vault_counters", "user_id"],
];
/**
 * Tables naming a user that live in the directory, not on the user's shard: they cross users (an
 * owner and a recipient on different shards read the same row), so a move leaves them where they are.
 */
export const DIRECTORY_USER_TABLES: readonly (readonly [table: string, column: string])[] = [
  ["shares", "owner_id"],
  ["share_view_logs", "owner_id"],
  ["sharing_keys", "user_id"],
  ["emergency_contacts", "owner_id"],
  ["dead_man_switches", "user_id"],
  ["dead_man_switch_recipients", "owner_id"],
  ["dead_man_switch_logs", "owner_id"],
  // Claims of entry ids (src/db/entry-ids.ts): the owner keeps them wherever their rows go.
  ["entry_ids", "owner_id"],
  // Pointers from a secure link's public id to its owner: the id keeps naming the owner after a move.
  ["secure_link_owners", "owner_id"],
];
/** Tables whose copied row may meet one their triggers already made on the target. */
const REPLACED = new Set(["vault_counters"]);

/** Rows read per page and statements per batch: D1 allows 100 bound parameters a statement. */
const PAGE = 100;
/** Beyond the cache's lifetime, for a statement that resolved its shard just before it expired. */
const GRACE_MS = 2_000;

export type MoveStep = "marked" | "copied" | "switched" | "cleaned";
export type MoveOptions = { settleMs?: number; onStep?: (step: MoveStep) => void | Promise<void> };
export type MoveResult = {
  userId: string;
  from: string;
  to: string;
  rowsCopied: number;
  rowsDeleted: number;
};

type MapRow = { shard: string; moving_to: string | null; cleanup_from: string | null };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function moveUser(
  env: Record<string, unknown>,
  userId: string,
  to: string,
  opts: MoveOptions = {},
): Promise<MoveResult> {
  const shards = shardBindings(env);
  if (!shards.includes(to))
    throw validationError("No such shard", [{ field: "to", message: "is not a bound shard" }]);
  const directory = bindingOf(env, directoryBinding(env));
  const settle = opts.settleMs ?? shardCacheMs(env) + GRACE_MS;
  const read = () =>
    directory
      .prepare("SELECT shard, moving_to, cleanup_from FROM user_shards WHERE user_id = ?")
      .bind(userId)
      .first<MapRow>();

  // A user never written is recorded where the hash puts them, so there is a row to mark.
  await directory
    .prepare(
      "INSERT INTO user_shards (user_id, shard, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING",
    )
    .bind(userId, pickShard(userId, shards), new Date().toISOString())
    .run();
  let row = (await read())!;
  if (row.moving_to && row.moving_to !== to)
    throw conflict(`The user is being moved to ${row.moving_to}; finish that move first`);
  let rowsCopied = 0;
  let rowsDeleted = 0;
  const from = row.moving_to ? row.shard : (row.cleanup_from ?? row.shard);

  if (!row.cleanup_from && row.shard !== to) {
    await directory
      .prepare("UPDATE user_shards SET moving_to = ? WHERE user_id = ? AND moving_to IS NULL")
      .bind(to, userId)
      .run();
    forgetShard(userId);
    await opts.onStep?.("marked");
    await sleep(settle);
    try {
      rowsCopied = await copyUser(bindingOf(env, row.shard), bindingOf(env, to), userId);
    } catch (err) {
      // A copy that fails (not a crash) gives the user back their writes on the old shard; the
      // partial copy is cleared by the next attempt before it copies.
      await directory
        .prepare("UPDATE user_shards SET moving_to = NULL WHERE user_id = ? AND moving_to = ?")
        .bind(userId, to)
        .run();
      forgetShard(userId);
      throw err;
    }
    await opts.onStep?.("copied");
    await directory
      .prepare(
        "UPDATE user_shards SET shard = ?, moving_to = NULL, cleanup_from = ? WHERE user_id = ? AND moving_to = ?",
      )
      .bind(to, row.shard, userId, to)
      .run();
    forgetShard(userId);
    await opts.onStep?.("switched");
    row = (await read())!;
  }
  if (row.cleanup_from) {
    // Readers that looked the map up before the switch still read the old shard until then.
    await sleep(settle);
    rowsDeleted = await deleteUser(bindingOf(env, row.cleanup_from), userId);
    await directory
      .prepare("UPDATE user_shards SET cleanup_from = NULL WHERE user_id = ? AND cleanup_from = ?")
      .bind(userId, row.cleanup_from)
      .run();
    await opts.onStep?.("cleaned");
  }
  return { userId, from, to, rowsCopied, rowsDeleted };
}

async function copyUser(source: D1Database, target: D1Database, userId: string): Promise<number> {
  let copied = 0;
  // Whatever an interrupted copy left on the target goes first, so the copy is exact.
  await deleteUser(target, userId);
  for (const [table, column] of USER_TABLES) {
    let after = -1;
    for (;;) {
      const page = await source
        .prepare(
          `SELECT rowid AS rowid__, * FROM ${table} WHERE ${column} = ? AND rowid > ? ORDER BY rowid LIMIT ${PAGE}`,
        )
        .bind(userId, after)
        .all<Record<string, unknown>>();
      if (page.results.length === 0) break;
      const inserts = page.results.map((r) => {
        const { rowid__, ...cols } = r;
        after = rowid__ as number;
        const names = Object.keys(cols);
        return target
          .prepare(
            `INSERT ${REPLACED.has(table) ? "OR REPLACE " : ""}INTO ${table} (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
          )
          .bind(...names.map((n) => cols[n]));
      });
      await target.batch(inserts);
      copied += inserts.length;
      if (page.results.length < PAGE) break;
    }
  }
  return copied;
}

/** Returns the rows deleted; counted first, since `changes` also counts what triggers touched. */
async function deleteUser(d1: D1Database, userId: string): Promise<number> {
  let deleted = 0;
  for (const [table, column] of USER_TABLES) {
    deleted +=
      (await d1
        .prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`)
        .bind(userId)
        .first<number>("n")) ?? 0;
    for (;;) {
      const r = await d1
        .prepare(
          `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} = ? LIMIT 1000)`,
        )
        .bind(userId)
        .run();
      if ((r.meta.changes ?? 0) === 0) break;
    }
  }
  return deleted;
}
