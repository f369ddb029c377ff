import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { expectErrorBody, TestUser } from "../support/auth";
import { entryBody } from "../support/fixtures";
import { at, b64, create, importEntry, push } from "../sync/helpers";

// docs/decisions/hardening.md, "Hardening: limits, abuse and failure" item 6: MAX_VAULT_BYTES_PER_USER (1 MiB in the suite) over encrypted_data + wrapped_item_key.
const QUOTA = Number(env.MAX_VAULT_BYTES_PER_USER);
/** 200,000 base64 characters: five such entries fit in 1 MiB with their keys, six do not. */
const BIG = "A".repeat(200_000);
const KEY = b64(40);
const SIZE = BIG.length + KEY.length;

const counted = async (userId: string) =>
  (
    await env.DB.prepare("SELECT bytes FROM vault_counters WHERE user_id = ?")
      .bind(userId)
      .first<{ bytes: number }>()
  )?.bytes ?? 0;
const stored = async (userId: string) =>
  (
    await env.DB.prepare(
      "SELECT coalesce(sum(length(CAST(coalesce(encrypted_data, '') AS BLOB)) + length(CAST(coalesce(wrapped_item_key, '') AS BLOB))), 0) AS n FROM passwords WHERE user_id = ? AND deleted_at IS NULL",
    )
      .bind(userId)
      .first<{ n: number }>()
  )?.n ?? 0;
const big = (over: Record<string, unknown> = {}) =>
  entryBody({ encrypted_data: BIG, wrapped_item_key: KEY, ...over });

describe("vault byte quota", () => {
  it("the suite's quota takes five big entries and not a sixth", () => {
    expect(5 * SIZE).toBeLessThanOrEqual(QUOTA);
    expect(6 * SIZE).toBeGreaterThan(QUOTA);
  });

  it("of eight parallel big creates exactly five succeed; the sixth is 503 and the counter matches the rows", async () => {
    const user = await TestUser.create();
    await user.csrf();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => user.call("POST", "/api/passwords", { body: big() })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 503, 503, 503]);
    await expectErrorBody(results.find((r) => r.status === 503)!, 503, "SERVICE_UNAVAILABLE");
    expect(await counted(user.id)).toBe(5 * SIZE);
    expect(await stored(user.id)).toBe(5 * SIZE);
    // A small entry still fits in what is left.
    expect((await user.call("POST", "/api/passwords", { body: entryBody() })).status).toBe(201);
  });

  it("an update that grows an entry past the quota is 503 and changes nothing; shrinking always passes; deletes free the bytes", async () => {
    const user = await TestUser.create();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          (await (await user.call("POST", "/api/passwords", { body: big() })).json()) as {
            data: { id: string };
          }
        ).data.id,
      );
    const small = (
      (await (await user.call("POST", "/api/passwords", { body: entryBody() })).json()) as {
        data: { id: string };
      }
    ).data.id;
    const before = await counted(user.id);
    await expectErrorBody(
      await user.call("PATCH", `/api/passwords/${small}`, { body: { encrypted_data: BIG } }),
      503,
      "SERVICE_UNAVAILABLE",
    );
    expect(await counted(user.id)).toBe(before);
    expect(
      (await user.call("PATCH", `/api/passwords/${ids[0]}`, { body: { encrypted_data: b64(30) } }))
        .status,
    ).toBe(200);
    expect(
      (await user.call("PATCH", `/api/passwords/${small}`, { body: { encrypted_data: BIG } }))
        .status,
    ).toBe(200);
    expect(await counted(user.id)).toBe(await stored(user.id));
    expect((await user.call("DELETE", `/api/passwords/${ids[1]}`)).status).toBe(200);
    expect(await counted(user.id)).toBe(await stored(user.id));
    await env.DB.prepare("DELETE FROM passwords WHERE id = ?").bind(ids[2]).run();
    expect(await counted(user.id)).toBe(await stored(user.id));
  });

  it("sync push: creates beyond the quota fail with SERVICE_UNAVAILABLE, and so does an update or restore that would pass it", async () => {
    const user = await TestUser.create();
    const first = await push(
      user,
      Array.from({ length: 5 }, () =>
        create(undefined, { encrypted_data: BIG, wrapped_item_key: KEY }),
      ),
    );
    expect(first.results.map((r) => r.status)).toEqual(Array(5).fill("applied"));
    const over = await push(user, [
      create(undefined, { encrypted_data: BIG, wrapped_item_key: KEY }),
    ]);
    expect(over.results[0]).toMatchObject({ status: "failed", code: "SERVICE_UNAVAILABLE" });
    const smallId = crypto.randomUUID();
    expect((await push(user, [create(smallId)])).results[0].status).toBe("applied");
    const grow = await push(user, [
      { action: "update", id: smallId, data: { encrypted_data: BIG }, clientUpdatedAt: at(1000) },
    ]);
    expect(grow.results[0]).toMatchObject({ status: "failed", code: "SERVICE_UNAVAILABLE" });
    // A deleted big entry coming back takes its bytes again: refused while another took its room.
    const victim = first.results[0].id;
    expect(
      (await push(user, [{ action: "delete", id: victim, clientUpdatedAt: at(2000) }])).results[0]
        .status,
    ).toBe("applied");
    expect(
      (await push(user, [create(undefined, { encrypted_data: BIG, wrapped_item_key: KEY })]))
        .results[0].status,
    ).toBe("applied");
    const back = await push(user, [
      { action: "update", id: victim, data: { encrypted_data: BIG }, clientUpdatedAt: at(3000) },
    ]);
    expect(back.results[0]).toMatchObject({ status: "failed", code: "SERVICE_UNAVAILABLE" });
    expect(await counted(user.id)).toBe(await stored(user.id));
    expect(await counted(user.id)).toBeLessThanOrEqual(QUOTA);
  });

  it("import: a batch that would pass the quota goes in not at all", async () => {
    const user = await TestUser.create();
    const entries = Array.from({ length: 6 }, (_, i) =>
      importEntry({ name: `Big ${i}`, encrypted_data: BIG, wrapped_item_key: KEY }),
    );
    const res = await user.call("POST", "/api/passwords/import", {
      body: { provider: "generic", entries },
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { imported: number; errors: string[] };
    expect(json.imported).toBe(0);
    expect(json.errors[0]).toMatch(/bytes/);
    expect(await counted(user.id)).toBe(0);
  });

  it("the tombstone purge keeps the counter (tombstones count nothing)", async () => {
    const user = await TestUser.create();
    const id = (
      (await (await user.call("POST", "/api/passwords", { body: big() })).json()) as {
        data: { id: string };
      }
    ).data.id;
    await user.call("DELETE", `/api/passwords/${id}`);
    // Deleted before the trash's 30 days, and older than the 30-day cursor window.
    await env.DB.prepare(
      "UPDATE passwords SET change_seq = 0, deleted_at = '2020-01-01T00:00:00.000Z' WHERE id = ?",
    )
      .bind(id)
      .run();
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController(), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(
      await env.DB.prepare("SELECT id FROM passwords WHERE id = ?").bind(id).first(),
    ).toBeNull();
    expect(await counted(user.id)).toBe(0);
  });
});
