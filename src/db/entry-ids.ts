import type { DbBindings } from "./client";
import { bindingOf, directoryBinding, shardBindings } from "./shards";
import { errorName, logJson } from "../lib/log";

/**
 * Entry ids are unique across users (docs/decisions/sync.md, "Push": "An id that another user holds fails with
 * CONFLICT"), and the id of a sync create or an import is the client's choice. On one database the
 * primary key of `passwords` keeps that rule. On several shards it sees only its own users, so
 * every entry's id is also claimed in the directory (`entry_ids`) before the entry is written,
 * and an id someone else has claimed is refused as it would be on one database.
 */
export interface EntryIdClaims {
  /**
   * Claims `ids` for `ownerId`. Returns the ids another user holds (they must not be written) and
   * the ones this call claimed first (`fresh`), which `release` may give back.
   */
  claim(
    ownerId: string,
    ids: readonly string[],
  ): Promise<{ taken: Set<string>; fresh: Set<string> }>;
  /**
   * Gives back ids whose entries were not written. Only for ids the server minted: nobody else can
   * know one, so no other request of the owner can be writing it meanwhile. A client's id stays
   * claimed by the client's owner even when its create did not go in (a retry may still store it,
   * and the reservation harms no one). Never throws.
   */
  release(ownerId: string, ids: readonly string[]): Promise<void>;
}

const none = {
  claim: async () => ({ taken: new Set<string>(), fresh: new Set<string>() }),
  release: async () => {},
};

/** D1 binds at most 100 parameters a statement; ids go in as one JSON array instead. */
const CLAIM =
  "INSERT INTO entry_ids (id, owner_id) SELECT value, ?1 FROM json_each(?2) WHERE true ON CONFLICT (id) DO NOTHING RETURNING id";
const TAKEN =
  "SELECT id FROM entry_ids WHERE id IN (SELECT value FROM json_each(?2)) AND owner_id <> ?1";
const RELEASE =
  "DELETE FROM entry_ids WHERE owner_id = ?1 AND id IN (SELECT value FROM json_each(?2))";

export function entryIdClaims(env: DbBindings): EntryIdClaims {
  if (shardBindings(env).length < 2) return none;
  const directory = () => bindingOf(env, directoryBinding(env));
  return {
    async claim(ownerId, ids) {
      if (ids.length === 0) return { taken: new Set(), fresh: new Set() };
      const list = JSON.stringify([...new Set(ids)]);
      const d1 = directory();
      // One batch is one transaction: what is not fresh was claimed before, by its owner or not.
      const [claimed, taken] = await d1.batch<{ id: string }>([
        d1.prepare(CLAIM).bind(ownerId, list),
        d1.prepare(TAKEN).bind(ownerId, list),
      ]);
      return {
        taken: new Set(taken!.results.map((r) => r.id)),
        fresh: new Set(claimed!.results.map((r) => r.id)),
      };
    },
    async release(ownerId, ids) {
      if (ids.length === 0) return;
      try {
        await directory().prepare(RELEASE).bind(ownerId, JSON.stringify(ids)).run();
      } catch (err) {
        // What stays claimed is an id nobody else knows, reserved for its owner: not worth failing
        // the request that is already reporting why its entry did not go in.
        logJson("warn", "entry id claims not released", { error: errorName(err) });
      }
    },
  };
}

/**
 * Claims ids the server minted, runs `write`, and gives the ids back unless it stored them (it
 * answers whether it did). A minted id is a v4 UUID (122 random bits): held by another user only
 * if the generator is broken, which fails the request rather than sharing an id.
 */
export async function writeMinted(
  claims: EntryIdClaims,
  ownerId: string,
  ids: readonly string[],
  write: () => Promise<boolean>,
): Promise<boolean> {
  const { taken, fresh } = await claims.claim(ownerId, ids);
  if (taken.size > 0) throw new Error("a minted entry id is already claimed");
  let stored = false;
  try {
    stored = await write();
  } finally {
    if (!stored) await claims.release(ownerId, [...fresh]);
  }
  return stored;
}
