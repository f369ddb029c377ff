import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor, directoryDb } from "../../src/db/client";
import { rawD1 } from "../../src/db/d1";
import { forgetShard, resolveShard } from "../../src/db/shard-map";
import { pickShard, shardBindings } from "../../src/db/shards";

const mapped = (userId: string) =>
  rawD1(directoryDb(env))
    .prepare("SELECT shard FROM user_shards WHERE user_id = ?")
    .bind(userId)
    .first<{ shard: string }>();

describe("the user → shard map", () => {
  it("is recorded in the directory on the user's first write, not on a read", async () => {
    const userId = `map-${crypto.randomUUID()}`;
    const db = rawD1(dbFor(env, userId));
    expect(
      await db
        .prepare("SELECT count(*) AS n FROM passwords WHERE user_id = ?")
        .bind(userId)
        .first("n"),
    ).toBe(0);
    expect(await mapped(userId)).toBeNull();
    await db.prepare("INSERT INTO sync_clocks (user_id, clock) VALUES (?, 1)").bind(userId).run();
    expect((await mapped(userId))?.shard).toBe(pickShard(userId, shardBindings(env)));
  });

  it("follows the map, not the hash, once a user is recorded", async () => {
    const userId = `pinned-${crypto.randomUUID()}`;
    const shards = shardBindings(env);
    const other = shards.find((s) => s !== pickShard(userId, shards));
    await rawD1(directoryDb(env))
      .prepare("INSERT INTO user_shards (user_id, shard, created_at) VALUES (?, ?, ?)")
      .bind(userId, other ?? shards[0], new Date().toISOString())
      .run();
    forgetShard(userId);
    expect(await resolveShard(env, userId, true)).toBe(other ?? shards[0]);
  });

  it("fails closed for a user mapped to a shard this deployment does not bind", async () => {
    const userId = `stray-${crypto.randomUUID()}`;
    await rawD1(directoryDb(env))
      .prepare("INSERT INTO user_shards (user_id, shard, created_at) VALUES (?, 'DB_99', ?)")
      .bind(userId, new Date().toISOString())
      .run();
    forgetShard(userId);
    await expect(rawD1(dbFor(env, userId)).prepare("SELECT 1").first()).rejects.toThrow(
      /DB_99, which is not bound/,
    );
  });

  it("runs batches on the user's shard", async () => {
    const userId = `batch-${crypto.randomUUID()}`;
    const db = rawD1(dbFor(env, userId));
    const [, read] = await db.batch([
      db.prepare("INSERT INTO sync_clocks (user_id, clock) VALUES (?, 7)").bind(userId),
      db.prepare("SELECT clock FROM sync_clocks WHERE user_id = ?").bind(userId),
    ]);
    expect(read!.results).toEqual([{ clock: 7 }]);
    expect(await mapped(userId)).not.toBeNull();
  });
});
