import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { createEntry, entryBody } from "../support/fixtures";
import { create, importEntry, push } from "../sync/helpers";

// The test worker's MAX_PASSWORDS_PER_USER is 25 (vitest.config.mts).
const LIMIT = 25;

/** The maintained counter beside the truth it stands for. */
async function counts(userId: string) {
  const counter = await env.DB.prepare("SELECT live FROM vault_counters WHERE user_id = ?")
    .bind(userId)
    .first<number>("live");
  const actual = await env.DB.prepare(
    "SELECT count(*) AS n FROM passwords WHERE user_id = ? AND deleted_at IS NULL",
  )
    .bind(userId)
    .first<number>("n");
  return { counter: counter ?? 0, actual: actual ?? 0 };
}

describe("live entry counter behind the entry limit", () => {
  it("parallel creates at the limit: exactly the room left goes in, the rest get 503, the count stays exact", async () => {
    const user = await TestUser.create();
    // Seeded through one import: the create rule allows 30 requests a minute.
    const seeded = await user.call("POST", "/api/passwords/import", {
      body: {
        provider: "generic",
        entries: Array.from({ length: LIMIT - 5 }, () => importEntry()),
      },
    });
    expect(((await seeded.json()) as { imported: number }).imported).toBe(LIMIT - 5);
    const results = await Promise.all(
      Array.from({ length: 15 }, () => user.call("POST", "/api/passwords", { body: entryBody() })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 503)).toHaveLength(10);
    expect(await counts(user.id)).toEqual({ counter: LIMIT, actual: LIMIT });
    const list = (await (await user.call("GET", "/api/passwords")).json()) as {
      pagination: { total: number };
    };
    expect(list.pagination.total).toBe(LIMIT);
  });

  it("follows deletes, restores through sync, imports and purges, and the limit follows the counter", async () => {
    const user = await TestUser.create();
    const a = await createEntry(user);
    const b = await createEntry(user);
    await createEntry(user);
    expect(await counts(user.id)).toEqual({ counter: 3, actual: 3 });

    expect((await user.call("DELETE", `/api/passwords/${a.id}`)).status).toBe(200);
    expect((await user.call("DELETE", `/api/passwords/${b.id}`)).status).toBe(200);
    expect(await counts(user.id)).toEqual({ counter: 1, actual: 1 });

    // An update of a deleted entry brings it back (sync push, last write wins).
    const restored = await push(user, [
      {
        action: "update",
        id: a.id,
        clientUpdatedAt: new Date(Date.now() + 1000).toISOString(),
        data: { name: "Back" },
      },
    ]);
    expect(restored.results[0].status).toBe("applied");
    expect(await counts(user.id)).toEqual({ counter: 2, actual: 2 });

    const pushed = await push(user, [create(), create()]);
    expect(pushed.results.map((r) => r.status)).toEqual(["applied", "applied"]);
    expect(await counts(user.id)).toEqual({ counter: 4, actual: 4 });

    const res = await user.call("POST", "/api/passwords/import", {
      body: { provider: "generic", entries: Array.from({ length: 20 }, () => importEntry()) },
    });
    expect(((await res.json()) as { imported: number }).imported).toBe(20);
    expect(await counts(user.id)).toEqual({ counter: 24, actual: 24 });

    // One place left: the first create fills it, the next is refused.
    expect((await user.call("POST", "/api/passwords", { body: entryBody() })).status).toBe(201);
    expect((await user.call("POST", "/api/passwords", { body: entryBody() })).status).toBe(503);

    // Hard deletes: a tombstone going leaves the count alone, a live row going lowers it.
    await env.DB.prepare("DELETE FROM passwords WHERE id = ?").bind(b.id).run();
    expect(await counts(user.id)).toEqual({ counter: LIMIT, actual: LIMIT });
    await env.DB.prepare(
      "DELETE FROM passwords WHERE user_id = ? AND deleted_at IS NULL AND id <> ?",
    )
      .bind(user.id, a.id)
      .run();
    expect(await counts(user.id)).toEqual({ counter: 1, actual: 1 });
    expect((await user.call("POST", "/api/passwords", { body: entryBody() })).status).toBe(201);
  });

  it("a refused create changes nothing: no row, no count", async () => {
    const user = await TestUser.create();
    await env.DB.prepare("INSERT INTO vault_counters (user_id, live) VALUES (?, ?)")
      .bind(user.id, LIMIT)
      .run();
    const res = await user.call("POST", "/api/passwords", { body: entryBody() });
    expect(res.status).toBe(503);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM passwords WHERE user_id = ?")
      .bind(user.id)
      .first<number>("n");
    expect(rows).toBe(0);
    expect(await counts(user.id)).toEqual({ counter: LIMIT, actual: 0 });
  });
});
