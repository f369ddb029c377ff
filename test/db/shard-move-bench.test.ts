import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bindingOf, pickShard, shardBindings } from "../../src/db/shards";
import { TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";

/**
 * The figures of `node bench/shards.mjs --move` (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): a 10,000-entry vault moved between two
 * shards of the worker pool's local D1 while its owner keeps writing. Left out of the suites by
 * vitest.config.mts; the bench sets SHARD_BENCH and VAULT_SHARDS=3.
 */
const e = env as unknown as Record<string, unknown>;
const shards = shardBindings(e);
const ENTRIES = 10_000;

if (!e.TEST_SHARD_BENCH || shards.length < 2)
  throw new Error("run through bench/shards.mjs (SHARD_BENCH=1, VAULT_SHARDS=3)");

describe("bench: moving a 10,000-entry vault", () => {
  it("times the move and checks every write made during it", { timeout: 300_000 }, async () => {
    const [from, to] = [shards[0]!, shards[1]!];
    let user: TestUser;
    do user = await TestUser.create();
    while (pickShard(user.id, shards) !== from);
    const { id } = await createEntry(user, { name: "v0" });
    // The vault: 10,000 entries of 1 KB of ciphertext each (deleted ones, so the suite's per-user
    // API limit still lets the writer create entries beside them; the move copies them the same).
    const d1 = bindingOf(e, from);
    const blob = "x".repeat(1024);
    const now = new Date().toISOString();
    for (let i = 0; i < ENTRIES; i += 100) {
      await d1.batch(
        Array.from({ length: 100 }, (_, j) =>
          d1
            .prepare(
              "INSERT INTO passwords (id, user_id, name, encryption_version, encrypted_data, wrapped_item_key, created_at, updated_at, deleted_at, change_seq) VALUES (?, ?, ?, 3, ?, 'k', ?, ?, ?, ?)",
            )
            .bind(crypto.randomUUID(), user.id, `seeded ${i + j}`, blob, now, now, now, Date.now()),
        ),
      );
    }
    const admin = await TestUser.create({ admin: true });
    let moving = true;
    const start = performance.now();
    const move = admin
      .call("POST", "/api/admin/shards/moves", { body: { user_id: user.id, to } })
      .finally(() => (moving = false));
    const writes: { name: string; ms: number }[] = [];
    let created = 0;
    for (let v = 1; moving; v++) {
      const t = performance.now();
      const res = await user.call("PATCH", `/api/passwords/${id}`, { body: { name: `v${v}` } });
      expect(res.status).toBe(200);
      writes.push({ name: `v${v}`, ms: performance.now() - t });
      if (v % 4 === 0 && created < 6) {
        await createEntry(user, { name: `during ${++created}` });
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const res = await move;
    const seconds = (performance.now() - start) / 1000;
    const body = (await res.json()) as { rows_copied: number; rows_deleted: number };
    expect(res.status).toBe(200);
    const list = (await (await user.call("GET", "/api/passwords?limit=2000")).json()) as {
      data: { name: string }[];
    };
    const names = new Set(list.data.map((p) => p.name));
    expect(names.has(writes.at(-1)!.name)).toBe(true);
    for (let i = 1; i <= created; i++) expect(names.has(`during ${i}`)).toBe(true);
    const onTarget = await bindingOf(e, to)
      .prepare("SELECT count(*) AS n FROM passwords WHERE user_id = ?")
      .bind(user.id)
      .first<number>("n");
    expect(onTarget).toBe(ENTRIES + 1 + created);
    const slowest = Math.max(...writes.map((w) => w.ms));
    console.log(
      `BENCH move of a ${ENTRIES.toLocaleString("en")}-entry vault: ${seconds.toFixed(1)} s (${body.rows_copied} rows copied, ${body.rows_deleted} deleted; ` +
        `two waits of SHARD_CACHE_MS ${e.SHARD_CACHE_MS} ms + 2 s included); ${writes.length} edits and ${created} creates during it, all present; ` +
        `slowest write ${(slowest / 1000).toFixed(1)} s (held while the copy ran)`,
    );
  });
});
