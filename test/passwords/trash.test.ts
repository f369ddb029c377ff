import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { purgeExpiredTombstones } from "../../src/domains/sync/purge";
import { expectErrorBody, TestUser } from "../support/auth";
import { encryptedBody, r2Keys, rowCount, upload } from "../support/attachments";
import { createEntry } from "../support/fixtures";
import { SELF } from "../support/worker";
import { pull, push } from "../sync/helpers";

type Trashed = { id: string; name: string; encrypted_data: string; deleted_at: string };
type TrashList = {
  data: Trashed[];
  pagination: { page: number; limit: number; total: number };
  retention_days: number;
};

const DAY = 24 * 60 * 60 * 1000;

async function trash(user: TestUser): Promise<TrashList> {
  const res = await user.call("GET", "/api/passwords/trash");
  expect(res.status).toBe(200);
  return (await res.json()) as TrashList;
}

async function liveIds(user: TestUser): Promise<string[]> {
  const res = await user.call("GET", "/api/passwords");
  return ((await res.json()) as { data: { id: string }[] }).data.map((e) => e.id);
}

async function row(id: string) {
  return env.DB.prepare(
    "SELECT deleted_at, purged_at, encrypted_data, wrapped_item_key, name FROM passwords WHERE id = ?",
  )
    .bind(id)
    .first<{
      deleted_at: string | null;
      purged_at: string | null;
      encrypted_data: string | null;
      wrapped_item_key: string | null;
      name: string;
    }>();
}

async function deleted(user: TestUser, over: Record<string, unknown> = {}) {
  const entry = await createEntry(user, over);
  expect((await user.call("DELETE", `/api/passwords/${entry.id}`)).status).toBe(200);
  return entry;
}

/** An entry in the trash with one attachment stored in R2. */
async function deletedWithFile(user: TestUser) {
  const entry = await createEntry(user, { name: "With file" });
  await upload(user, await encryptedBody({ id: entry.id, type: "password" }));
  expect(await r2Keys(user.id)).toHaveLength(1);
  expect((await user.call("DELETE", `/api/passwords/${entry.id}`)).status).toBe(200);
  return entry;
}

describe("the trash", () => {
  it("lists a deleted entry with its ciphertext, and a restore brings it back to every device's pull", async () => {
    const user = await TestUser.create();
    const kept = await createEntry(user, { name: "Kept" });
    const entry = await createEntry(user, { name: "GitHub" });
    const before = (await pull(user)).serverTimestamp;
    expect((await user.call("DELETE", `/api/passwords/${entry.id}`)).status).toBe(200);

    const listed = await trash(user);
    expect(listed.retention_days).toBe(30);
    expect(listed.pagination.total).toBe(1);
    expect(listed.data.map((e) => [e.id, e.name, e.encrypted_data])).toEqual([
      [entry.id, "GitHub", entry.body.encrypted_data],
    ]);
    expect(listed.data[0]!.deleted_at).toBeTruthy();
    expect(await liveIds(user)).toEqual([kept.id]);
    // The spec's contract is untouched: the delete is a tombstone in a delta pull.
    const afterDelete = await pull(user, before);
    expect(afterDelete.changes).toEqual([
      { id: entry.id, _deleted: true, deleted_at: listed.data[0]!.deleted_at },
    ]);

    const res = await user.call("POST", `/api/passwords/trash/${entry.id}/restore`);
    expect(res.status).toBe(200);
    const restored = (await res.json()) as { success: true; data: { updated_at: string } };
    expect(restored.success).toBe(true);
    expect(restored.data.updated_at > listed.data[0]!.deleted_at).toBe(true);

    expect((await trash(user)).data).toEqual([]);
    expect((await liveIds(user)).sort()).toEqual([kept.id, entry.id].sort());
    // A device that saw the tombstone gets the entry back, whole, from its next delta pull.
    const back = await pull(user, afterDelete.serverTimestamp);
    expect(back.changes).toHaveLength(1);
    expect(back.changes[0]).toMatchObject({
      id: entry.id,
      _deleted: false,
      name: "GitHub",
      encrypted_data: entry.body.encrypted_data,
      updated_at: restored.data.updated_at,
    });
  });

  it("a sync update of a trashed entry brings it back too (the client's offline undo)", async () => {
    const user = await TestUser.create();
    const entry = await deleted(user, { name: "Offline" });
    const { results } = await push(user, [
      {
        action: "update",
        id: entry.id,
        data: {
          encrypted_data: entry.body.encrypted_data,
          wrapped_item_key: entry.body.wrapped_item_key,
        },
        clientUpdatedAt: new Date().toISOString(),
      },
    ]);
    expect(results[0]!.status).toBe("applied");
    expect((await trash(user)).data).toEqual([]);
    expect(await liveIds(user)).toEqual([entry.id]);
  });

  it("another user's trashed entry is not found for listing, restore or purge, and emptying leaves it", async () => {
    const owner = await TestUser.create();
    const other = await TestUser.create();
    const entry = await deletedWithFile(owner);

    expect((await trash(other)).data).toEqual([]);
    await expectErrorBody(
      await other.call("POST", `/api/passwords/trash/${entry.id}/restore`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await other.call("DELETE", `/api/passwords/trash/${entry.id}`),
      404,
      "NOT_FOUND",
    );
    const emptied = await other.call("DELETE", "/api/passwords/trash");
    expect(await emptied.json()).toEqual({ success: true, purged: 0 });

    expect((await trash(owner)).data.map((e) => e.id)).toEqual([entry.id]);
    expect((await row(entry.id))?.encrypted_data).toBe(entry.body.encrypted_data);
    expect(await r2Keys(owner.id)).toHaveLength(1);
  });

  it("deleting for good drops the ciphertext and the attachments, and keeps the tombstone for sync", async () => {
    const user = await TestUser.create();
    const before = (await pull(user)).serverTimestamp;
    const entry = await deletedWithFile(user);

    const res = await user.call("DELETE", `/api/passwords/trash/${entry.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });

    expect((await trash(user)).data).toEqual([]);
    expect(await r2Keys(user.id)).toEqual([]);
    expect(await rowCount(user.id)).toBe(0);
    const stored = await row(entry.id);
    expect(stored).toMatchObject({ encrypted_data: null, wrapped_item_key: null, name: "" });
    expect(stored?.purged_at).toBeTruthy();
    // A device that has not pulled since before the delete still learns of it.
    const changes = (await pull(user, before)).changes;
    expect(changes).toEqual([{ id: entry.id, _deleted: true, deleted_at: stored!.deleted_at }]);
    // Gone for good: neither restore nor a second purge finds it.
    await expectErrorBody(
      await user.call("POST", `/api/passwords/trash/${entry.id}/restore`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("DELETE", `/api/passwords/trash/${entry.id}`),
      404,
      "NOT_FOUND",
    );
    // A sync update without the whole envelope cannot bring back an entry with no ciphertext.
    const { results } = await push(user, [
      {
        action: "update",
        id: entry.id,
        data: { name: "X" },
        clientUpdatedAt: new Date().toISOString(),
      },
    ]);
    expect(results[0]).toMatchObject({ status: "failed", code: "VALIDATION_ERROR" });
    expect((await row(entry.id))?.deleted_at).toBe(stored!.deleted_at);
  });

  it("emptying the trash purges every trashed entry and leaves the live ones", async () => {
    const user = await TestUser.create();
    const live = await createEntry(user, { name: "Live" });
    const withFile = await deletedWithFile(user);
    const plain = [];
    for (let i = 0; i < 3; i++) plain.push(await deleted(user, { name: `Old ${i}` }));
    expect((await trash(user)).pagination.total).toBe(4);

    const res = await user.call("DELETE", "/api/passwords/trash");
    expect(await res.json()).toEqual({ success: true, purged: 4 });
    expect((await trash(user)).data).toEqual([]);
    expect(await r2Keys(user.id)).toEqual([]);
    for (const e of [withFile, ...plain]) expect((await row(e.id))?.encrypted_data).toBeNull();
    expect(await liveIds(user)).toEqual([live.id]);
    expect((await row(live.id))?.encrypted_data).toBe(live.body.encrypted_data);
  });

  it("the scheduled purge keeps the trash for the retention time, then removes the entry and its files", async () => {
    const user = await TestUser.create();
    const live = await createEntry(user, { name: "Live" });
    const entry = await deletedWithFile(user);

    await purgeExpiredTombstones(env as never, Date.now() + 29 * DAY);
    expect((await trash(user)).data.map((e) => e.id)).toEqual([entry.id]);
    expect(await r2Keys(user.id)).toHaveLength(1);

    await purgeExpiredTombstones(env as never, Date.now() + 31 * DAY);
    expect((await trash(user)).data).toEqual([]);
    expect(await r2Keys(user.id)).toEqual([]);
    expect(await rowCount(user.id)).toBe(0);
    // Past the cursor window too, so the bare tombstone itself went in the same run.
    expect(await row(entry.id)).toBeNull();
    expect((await row(live.id))?.encrypted_data).toBe(live.body.encrypted_data);
  });

  it("a purged tombstone stays until the cursor window has passed", async () => {
    const user = await TestUser.create();
    const entry = await deleted(user);
    expect((await user.call("DELETE", `/api/passwords/trash/${entry.id}`)).status).toBe(200);
    await purgeExpiredTombstones(env as never, Date.now() + 10 * DAY);
    expect(await row(entry.id)).not.toBeNull();
    await purgeExpiredTombstones(env as never, Date.now() + 31 * DAY);
    expect(await row(entry.id)).toBeNull();
  });

  it("a restore is refused over the entry limit (25 in the suite), and the entry stays in the trash", async () => {
    const user = await TestUser.create();
    const entry = await deleted(user, { name: "Over" });
    for (let i = 0; i < 25; i++) await createEntry(user, { name: `Fill ${i}` });
    await expectErrorBody(
      await user.call("POST", `/api/passwords/trash/${entry.id}/restore`),
      503,
      "SERVICE_UNAVAILABLE",
    );
    expect((await trash(user)).data.map((e) => e.id)).toEqual([entry.id]);
    expect(await liveIds(user)).toHaveLength(25);
  });

  it("refuses bad input with the spec's error body and changes nothing", async () => {
    const user = await TestUser.create();
    const live = await createEntry(user);
    // A live entry is not in the trash.
    await expectErrorBody(
      await user.call("POST", `/api/passwords/trash/${live.id}/restore`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("DELETE", `/api/passwords/trash/${live.id}`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("POST", `/api/passwords/trash/${"x".repeat(200)}/restore`),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("GET", "/api/passwords/trash?limit=0"),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("GET", "/api/passwords/trash?page=abc"),
      400,
      "VALIDATION_ERROR",
    );
    expect(await liveIds(user)).toEqual([live.id]);
    expect((await row(live.id))?.deleted_at).toBeNull();
    await expectErrorBody(
      await SELF.fetch("https://vault.test/api/passwords/trash"),
      401,
      "UNAUTHORIZED",
    );
  });
});
