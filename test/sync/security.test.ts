import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { passwords } from "../../src/db/schema/passwords";
import { advanceClock, clockValue } from "../../src/db/change-clock";
import { and, eq } from "drizzle-orm";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { at, create, envelope, pull, push, row } from "./helpers";

describe("sync: another user's records", () => {
  it("never appear in a pull, and cannot be updated, deleted or taken over by a create", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const { id, body } = await createEntry(owner, { name: "Mine" });
    expect((await pull(intruder)).changes).toEqual([]);
    expect((await pull(intruder, at(-60_000))).changes).toEqual([]);
    const res = await push(intruder, [
      { action: "update", id, data: { name: "Stolen" }, clientUpdatedAt: at(10_000) },
      { action: "delete", id, clientUpdatedAt: at(10_000) },
      create(id, { name: "Hijack" }, at(10_000)),
    ]);
    expect(res.results.map((r) => [r.status, r.code])).toEqual([
      ["failed", "NOT_FOUND"],
      ["failed", "NOT_FOUND"],
      ["failed", "CONFLICT"],
    ]);
    expect(res.results.every((r) => r.serverEntry === undefined)).toBe(true);
    expect(await row(id)).toMatchObject({
      user_id: owner.id,
      name: "Mine",
      deleted_at: null,
      encrypted_data: body.encrypted_data,
    });
  });

  it("push needs a CSRF token (the service worker's push is not exempt, D2)", async () => {
    const user = await TestUser.create();
    const m = create();
    await expectErrorBody(
      await user.call("POST", "/api/passwords/sync", { body: { mutations: [m] }, csrf: false }),
      403,
      "FORBIDDEN",
    );
    expect(await row(m.id)).toBeNull();
  });

  it("a placeholder's plaintext username never leaves through sync once it is V3", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    await env.DB.prepare(
      "UPDATE passwords SET encryption_version = -1, username = 'alice@example.test', updated_at = ? WHERE id = ?",
    )
      .bind(at(-60_000), id)
      .run();
    await push(user, [{ action: "update", id, data: envelope(), clientUpdatedAt: at() }]);
    const text = JSON.stringify(await pull(user));
    expect(text).not.toContain("alice@example.test");
  });
});

describe("sync cursor: no change is ever skipped", () => {
  it("a write from a writer whose wall clock lags behind an issued cursor still lands after it", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user, { name: "Before" });
    const cursor = (await pull(user)).serverTimestamp;
    const db = dbFor(env, user.id);
    // The writer's clock reads ten seconds earlier than the cursor it races with.
    await db.batch([
      advanceClock(db, user.id, Date.parse(cursor) - 10_000),
      db
        .update(passwords)
        .set({ name: "Lagging", changeSeq: clockValue(user.id) })
        .where(and(eq(passwords.userId, user.id), eq(passwords.id, id))),
    ]);
    const delta = await pull(user, cursor);
    expect(delta.changes.map((c) => [c.id, c.name])).toEqual([[id, "Lagging"]]);
  });

  it("writes in the same millisecond get distinct, strictly increasing stamps", async () => {
    const user = await TestUser.create();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await createEntry(user)).id);
    const db = dbFor(env, user.id);
    const now = Date.now();
    for (const id of ids) {
      await db.batch([
        advanceClock(db, user.id, now),
        db
          .update(passwords)
          .set({ changeSeq: clockValue(user.id) })
          .where(and(eq(passwords.userId, user.id), eq(passwords.id, id))),
      ]);
    }
    const seqs = [];
    for (const id of ids) seqs.push((await row(id))!.change_seq as number);
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]);
  });

  it("pulls chained on their cursors while writers run concurrently see every final version", async () => {
    const user = await TestUser.create();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await createEntry(user, { name: `e${i}` })).id);
    const seen = new Map<string, string>();
    const apply = (changes: { id: string; _deleted: boolean; encrypted_data?: unknown }[]) => {
      for (const c of changes) seen.set(c.id, c._deleted ? "deleted" : String(c.encrypted_data));
    };
    const first = await pull(user);
    apply(first.changes as never);
    let cursor = first.serverTimestamp;

    let writing = true;
    const writers = (async () => {
      const tasks = [];
      for (let round = 0; round < 3; round++) {
        for (const id of ids) {
          tasks.push(
            user.call("PATCH", `/api/passwords/${id}`, {
              body: { encrypted_data: envelope().encrypted_data },
            }),
          );
        }
        tasks.push(push(user, [create(), create()]));
      }
      await Promise.all(tasks);
      writing = false;
    })();
    while (writing) {
      const delta = await pull(user, cursor);
      apply(delta.changes as never);
      cursor = delta.serverTimestamp;
    }
    await writers;
    apply((await pull(user, cursor)).changes as never);

    const rows = await env.DB.prepare(
      "SELECT id, encrypted_data, deleted_at FROM passwords WHERE user_id = ?",
    )
      .bind(user.id)
      .all<{ id: string; encrypted_data: string; deleted_at: string | null }>();
    expect(rows.results.length).toBe(14);
    for (const r of rows.results)
      expect(seen.get(r.id)).toBe(r.deleted_at ? "deleted" : r.encrypted_data);
  });
});
