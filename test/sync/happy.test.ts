import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { zeroTrustBody } from "../support/entry-totp";
import { at, countRows, create, envelope, pull, push, row, type Change } from "./helpers";

const isIso = (s: unknown) => typeof s === "string" && new Date(s).toISOString() === s;

describe("sync pull", () => {
  it("without since returns every live entry in full, no tombstones, and a cursor", async () => {
    const user = await TestUser.create();
    const a = await createEntry(user, { name: "A" });
    const b = await createEntry(user, { name: "B" });
    await user.call("DELETE", `/api/passwords/${b.id}`);
    const body = await pull(user);
    expect(body.fullSyncRequired).toBe(true);
    expect(isIso(body.serverTimestamp)).toBe(true);
    expect(body.changes).toHaveLength(1);
    expect(body.changes[0]).toMatchObject({
      id: a.id,
      name: "A",
      _deleted: false,
      wrapped_item_key: a.body.wrapped_item_key,
      encrypted_data: a.body.encrypted_data,
      encryption_version: 3,
    });
    expect(isIso(body.changes[0].updated_at)).toBe(true);
  });

  it("with a cursor returns only what changed after it: updates in full, deletions as tombstones", async () => {
    const user = await TestUser.create();
    const keep = await createEntry(user, { name: "Keep" });
    const edit = await createEntry(user, { name: "Edit" });
    const gone = await createEntry(user, { name: "Gone" });
    const first = await pull(user);
    expect(first.changes.map((c) => c.id).sort()).toEqual([keep.id, edit.id, gone.id].sort());

    expect((await pull(user, first.serverTimestamp)).changes).toEqual([]);

    await user.call("PATCH", `/api/passwords/${edit.id}`, { body: { name: "Edited" } });
    await user.call("DELETE", `/api/passwords/${gone.id}`);
    const added = await createEntry(user, { name: "Added" });
    const delta = await pull(user, first.serverTimestamp);
    expect(delta.fullSyncRequired).toBe(false);
    const byId = new Map(delta.changes.map((c) => [c.id, c]));
    expect([...byId.keys()].sort()).toEqual([edit.id, gone.id, added.id].sort());
    expect(byId.get(edit.id)).toMatchObject({ name: "Edited", _deleted: false });
    const tomb = byId.get(gone.id)!;
    expect(Object.keys(tomb).sort()).toEqual(["_deleted", "deleted_at", "id"]);
    expect(tomb._deleted).toBe(true);
    expect(isIso(tomb.deleted_at)).toBe(true);
    expect(delta.serverTimestamp >= first.serverTimestamp).toBe(true);
    expect((await pull(user, delta.serverTimestamp)).changes).toEqual([]);
  });

  it("a cursor older than 30 days gets the full live set and fullSyncRequired (D13)", async () => {
    const user = await TestUser.create();
    const live = await createEntry(user);
    const dead = await createEntry(user);
    await user.call("DELETE", `/api/passwords/${dead.id}`);
    const body = await pull(user, at(-31 * 24 * 3600 * 1000));
    expect(body.fullSyncRequired).toBe(true);
    expect(body.changes.map((c) => c.id)).toEqual([live.id]);
  });

  it("a cursor a few seconds in the future is accepted", async () => {
    const user = await TestUser.create();
    const body = await pull(user, at(30_000));
    expect(body).toMatchObject({ changes: [], fullSyncRequired: false });
  });

  it("the cursor keeps up with time even when nothing changes", async () => {
    const user = await TestUser.create();
    await createEntry(user);
    const one = await pull(user);
    await new Promise((r) => setTimeout(r, 15));
    const two = await pull(user, one.serverTimestamp);
    expect(two.serverTimestamp > one.serverTimestamp).toBe(true);
  });
});

describe("sync push", () => {
  it("creates with the client's id, returns the server entry, and the next pull carries it", async () => {
    const user = await TestUser.create();
    const before = await pull(user);
    const id = crypto.randomUUID();
    const m = create(id, { name: "Offline" });
    const body = await push(user, [m]);
    expect(isIso(body.serverTimestamp)).toBe(true);
    expect(body.results).toHaveLength(1);
    expect(body.results[0]).toMatchObject({ id, status: "applied" });
    expect(body.results[0].serverEntry).toMatchObject({
      id,
      name: "Offline",
      _deleted: false,
      encrypted_data: m.data.encrypted_data,
      encryption_version: 3,
    });
    const delta = await pull(user, before.serverTimestamp);
    expect(delta.changes.map((c) => c.id)).toEqual([id]);
    const list = (await (await user.call("GET", "/api/passwords")).json()) as {
      data: { id: string; name: string }[];
    };
    expect(list.data.map((e) => e.id)).toEqual([id]);
  });

  it("applies a later update and delete; the list and pulls reflect them", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user, { name: "Old" });
    const cursor = (await pull(user)).serverTimestamp;
    const newData = envelope({ name: "New", website: "new.example.com" });
    const up = await push(user, [
      { action: "update", id, data: newData, clientUpdatedAt: at(1000) },
    ]);
    expect(up.results).toEqual([{ id, status: "applied" }]);
    expect(await row(id)).toMatchObject({
      name: "New",
      encrypted_data: newData.encrypted_data,
      host: "new.example.com",
      deleted_at: null,
    });

    const del = await push(user, [{ action: "delete", id, clientUpdatedAt: at(2000) }]);
    expect(del.results).toEqual([{ id, status: "applied" }]);
    expect((await row(id))?.deleted_at).not.toBeNull();
    const delta = await pull(user, cursor);
    expect(delta.changes).toEqual([{ id, _deleted: true, deleted_at: expect.any(String) }]);
    await expect(countRows(user.id)).resolves.toBe(0);
  });

  it("last write wins: an older or equally old client change loses and gets the server entry", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user, { name: "Server" });
    const stored = (await row(id))!;
    const older = await push(user, [
      { action: "update", id, data: { name: "Stale" }, clientUpdatedAt: at(-60_000) },
    ]);
    expect(older.results[0]).toMatchObject({
      id,
      status: "conflict_server_wins",
      serverEntry: { id, name: "Server", _deleted: false },
    });
    const tie = await push(user, [
      { action: "update", id, data: { name: "Tie" }, clientUpdatedAt: stored.updated_at },
    ]);
    expect(tie.results[0]).toMatchObject({
      id,
      status: "conflict_server_wins",
      serverEntry: { name: "Server" },
    });
    const staleDelete = await push(user, [{ action: "delete", id, clientUpdatedAt: at(-60_000) }]);
    expect(staleDelete.results[0]).toMatchObject({
      status: "conflict_server_wins",
      serverEntry: { id, _deleted: false },
    });
    expect(await row(id)).toMatchObject({ name: "Server", deleted_at: null });
  });

  it("a create whose id already exists never makes a duplicate", async () => {
    const user = await TestUser.create();
    const id = crypto.randomUUID();
    const m = create(id, { name: "Once" });
    await push(user, [m]);
    const retry = await push(user, [m]);
    expect(retry.results[0]).toMatchObject({
      id,
      status: "applied",
      serverEntry: { id, name: "Once" },
    });
    const newer = create(id, { name: "Newer" }, at(5000));
    expect((await push(user, [newer])).results[0]).toMatchObject({
      id,
      status: "applied",
      serverEntry: { name: "Newer" },
    });
    await expect(countRows(user.id, false)).resolves.toBe(1);
    expect(await row(id)).toMatchObject({
      name: "Newer",
      encrypted_data: newer.data.encrypted_data,
    });
  });

  it("mutations of one push apply in order, to the same entry too", async () => {
    const user = await TestUser.create();
    const id = crypto.randomUUID();
    const body = await push(user, [
      create(id, { name: "v1" }, at(-3000)),
      { action: "update", id, data: { name: "v2" }, clientUpdatedAt: at(-2000) },
      { action: "update", id, data: { name: "older" }, clientUpdatedAt: at(-2500) },
    ]);
    expect(body.results.map((r) => r.status)).toEqual([
      "applied",
      "applied",
      "conflict_server_wins",
    ]);
    expect((body.results[2].serverEntry as Change).name).toBe("v2");
    expect((await row(id))?.name).toBe("v2");
  });

  it("a later edit brings back an entry deleted elsewhere; a delete of a deleted entry is applied", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    await user.call("DELETE", `/api/passwords/${id}`);
    expect((await push(user, [{ action: "delete", id, clientUpdatedAt: at() }])).results).toEqual([
      { id, status: "applied" },
    ]);
    const stale = await push(user, [
      { action: "update", id, data: { name: "Stale" }, clientUpdatedAt: at(-60_000) },
    ]);
    expect(stale.results[0]).toMatchObject({
      status: "conflict_server_wins",
      serverEntry: { id, _deleted: true },
    });
    const back = await push(user, [
      { action: "update", id, data: { name: "Back" }, clientUpdatedAt: at(1000) },
    ]);
    expect(back.results[0].status).toBe("applied");
    expect(await row(id)).toMatchObject({ name: "Back", deleted_at: null });
  });

  it("an update turns a placeholder entry into V3 only with a full envelope and clears its plaintext", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const { env } = await import("cloudflare:test");
    await env.DB.prepare(
      "UPDATE passwords SET encryption_version = -1, username = 'alice', updated_at = ? WHERE id = ?",
    )
      .bind(at(-60_000), id)
      .run();
    const partial = await push(user, [
      { action: "update", id, data: { name: "No envelope" }, clientUpdatedAt: at() },
    ]);
    expect(partial.results[0]).toMatchObject({ status: "failed", code: "VALIDATION_ERROR" });
    const full = await push(user, [
      { action: "update", id, data: envelope(), clientUpdatedAt: at() },
    ]);
    expect(full.results[0].status).toBe("applied");
    expect(await row(id)).toMatchObject({ encryption_version: 3, username: null });
  });

  it("takes a full batch of 100 mutations and a pull then carries each changed entry once", async () => {
    const user = await TestUser.create();
    const ids = (
      await push(
        user,
        Array.from({ length: 20 }, () => create(undefined, {}, at(-60_000))),
      )
    ).results.map((r) => r.id);
    const cursor = (await pull(user)).serverTimestamp;
    const base = Date.now() - 30_000;
    const mutations = Array.from({ length: 100 }, (_, k) => ({
      action: "update",
      id: ids[k % 20],
      data: { name: `round ${Math.floor(k / 20)}` },
      clientUpdatedAt: new Date(base + k).toISOString(),
    }));
    const body = await push(user, mutations);
    expect(body.results.map((r) => r.status)).toEqual(Array(100).fill("applied"));
    const delta = await pull(user, cursor);
    expect(delta.changes).toHaveLength(20);
    expect(new Set(delta.changes.map((c) => c.name))).toEqual(new Set(["round 4"]));
  });

  it("adding or removing an entry's TOTP shows in the next delta pull", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const cursor = (await pull(user)).serverTimestamp;
    expect(
      (await user.call("POST", `/api/passwords/${id}/totp`, { body: zeroTrustBody() })).status,
    ).toBe(201);
    const added = await pull(user, cursor);
    expect(added.changes).toEqual([expect.objectContaining({ id, has_totp: true })]);
    expect((await user.call("DELETE", `/api/passwords/${id}/totp`)).status).toBe(200);
    expect((await pull(user, added.serverTimestamp)).changes).toEqual([
      expect.objectContaining({ id, has_totp: false }),
    ]);
  });
});
