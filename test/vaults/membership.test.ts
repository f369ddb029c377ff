import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  addEntry,
  createVault,
  invite,
  join,
  members,
  pull,
  wrapped,
  type Vault,
} from "../support/vaults";

describe("shared vaults: membership and roles", () => {
  it("create, invite, accept, wrap: states go pending → accepted → wrapped, and the key is the member's own", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const vault = await createVault(owner);
    expect(vault).toMatchObject({
      key_version: 1,
      role: "owner",
      member_state: "wrapped",
      members: 1,
    });
    const inv = await invite(owner, vault.id, friend, "editor");
    expect((await members(owner, vault.id)).find((m) => m.email === friend.email)?.state).toBe(
      "pending",
    );
    const listed = (await (await friend.call("GET", "/api/vaults/invitations")).json()) as {
      invitations: { id: string }[];
    };
    expect(listed.invitations.map((i) => i.id)).toEqual([inv.id]);
    expect((await friend.call("POST", `/api/vaults/invitations/${inv.id}/accept`)).status).toBe(
      200,
    );
    expect((await members(owner, vault.id)).find((m) => m.user_id === friend.id)?.state).toBe(
      "accepted",
    );
    await expectErrorBody(
      await friend.call("GET", `/api/vaults/${vault.id}/key`),
      404,
      "NOT_FOUND",
    );
    const key = wrapped();
    const res = await owner.call("PUT", `/api/vaults/${vault.id}/members/${friend.id}/key`, {
      body: { key_version: 1, wrapped_key: key },
    });
    expect(res.status).toBe(200);
    expect((await members(friend, vault.id)).find((m) => m.user_id === friend.id)?.state).toBe(
      "wrapped",
    );
    const mine = (await (await friend.call("GET", `/api/vaults/${vault.id}/key`)).json()) as {
      wrapped_key: string;
    };
    expect(mine.wrapped_key).toBe(key);
    const list = (await (await friend.call("GET", "/api/vaults")).json()) as { vaults: Vault[] };
    expect(list.vaults).toEqual([
      expect.objectContaining({ id: vault.id, role: "editor", members: 2 }),
    ]);
  });

  it("another user's vault id is not found on every route, and nothing changes", async () => {
    const owner = await TestUser.create();
    const stranger = await TestUser.create();
    const vault = await createVault(owner);
    const e = await addEntry(owner, vault.id);
    for (const [method, path, body] of [
      ["GET", `/api/vaults/${vault.id}`],
      ["PATCH", `/api/vaults/${vault.id}`, { sealed_name: "x" }],
      ["DELETE", `/api/vaults/${vault.id}?entries=delete`],
      ["GET", `/api/vaults/${vault.id}/members`],
      ["GET", `/api/vaults/${vault.id}/key`],
      ["GET", `/api/vaults/${vault.id}/sync`],
      ["GET", `/api/vaults/${vault.id}/activity`],
      ["GET", `/api/vaults/${vault.id}/rotation`],
      ["POST", `/api/vaults/${vault.id}/invitations`, { email: stranger.email, role: "owner" }],
      ["DELETE", `/api/vaults/${vault.id}/entries/${e.id}`],
      ["DELETE", `/api/vaults/${vault.id}/members/${owner.id}`],
      ["POST", `/api/vaults/${vault.id}/transfer`, { user_id: stranger.id }],
    ] as const) {
      await expectErrorBody(await stranger.call(method, path, { body }), 404, "NOT_FOUND");
    }
    expect((await members(owner, vault.id)).map((m) => m.user_id)).toEqual([owner.id]);
    const pulled = (await (await pull(owner, vault.id)).json()) as { changes: { id: string }[] };
    expect(pulled.changes.map((c) => c.id)).toEqual([e.id]);
  });

  it("a viewer reads but may not write, invite or wrap; an editor writes but may not manage", async () => {
    const owner = await TestUser.create();
    const viewer = await TestUser.create();
    const editor = await TestUser.create();
    const other = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, viewer, "viewer");
    await join(owner, vault.id, editor, "editor");
    const e = await addEntry(owner, vault.id);
    expect((await pull(viewer, vault.id)).status).toBe(200);
    await expectErrorBody(
      await viewer.call("PUT", `/api/vaults/${vault.id}/entries/${e.id}`, {
        body: { name: "x", key_version: 1 },
      }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await viewer.call("DELETE", `/api/vaults/${vault.id}/entries/${e.id}`),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await viewer.call("POST", `/api/vaults/${vault.id}/invitations`, {
        body: { email: other.email, role: "viewer" },
      }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await editor.call("PUT", `/api/vaults/${vault.id}/members/${viewer.id}/key`, {
        body: { key_version: 1, wrapped_key: wrapped() },
      }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await editor.call("GET", `/api/vaults/${vault.id}/activity`),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await editor.call("PATCH", `/api/vaults/${vault.id}/members/${viewer.id}`, {
        body: { role: "editor" },
      }),
      403,
      "FORBIDDEN",
    );
    const changed = await editor.call("PUT", `/api/vaults/${vault.id}/entries/${e.id}`, {
      body: { name: "renamed", key_version: 1 },
    });
    expect(changed.status).toBe(200);
    const pulled = (await (await pull(viewer, vault.id)).json()) as {
      changes: { id: string; name?: string }[];
    };
    expect(pulled.changes).toEqual([expect.objectContaining({ id: e.id, name: "renamed" })]);
  });

  it("a manager may not make an owner; only an owner may; the last owner cannot leave, be demoted or removed", async () => {
    const owner = await TestUser.create();
    const manager = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, manager, "manager");
    await expectErrorBody(
      await manager.call("PATCH", `/api/vaults/${vault.id}/members/${manager.id}`, {
        body: { role: "owner" },
      }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await manager.call("DELETE", `/api/vaults/${vault.id}/members/${owner.id}`),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await owner.call("DELETE", `/api/vaults/${vault.id}/members/${owner.id}`),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await owner.call("PATCH", `/api/vaults/${vault.id}/members/${owner.id}`, {
        body: { role: "viewer" },
      }),
      409,
      "CONFLICT",
    );
    expect((await members(owner, vault.id)).find((m) => m.user_id === owner.id)?.role).toBe(
      "owner",
    );
    // After a transfer the old owner is a manager and may leave; the new owner may not.
    expect(
      (
        await owner.call("POST", `/api/vaults/${vault.id}/transfer`, {
          body: { user_id: manager.id },
        })
      ).status,
    ).toBe(200);
    expect((await members(manager, vault.id)).find((m) => m.user_id === manager.id)?.role).toBe(
      "owner",
    );
    expect((await owner.call("DELETE", `/api/vaults/${vault.id}/members/${owner.id}`)).status).toBe(
      200,
    );
    await expectErrorBody(
      await manager.call("DELETE", `/api/vaults/${vault.id}/members/${manager.id}`),
      409,
      "CONFLICT",
    );
  });

  it("a removed member is refused at once: pull, key, entries; the activity log records it without secrets", async () => {
    const owner = await TestUser.create();
    const gone = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, gone, "editor");
    const e = await addEntry(gone, vault.id);
    expect((await pull(gone, vault.id)).status).toBe(200);
    expect((await owner.call("DELETE", `/api/vaults/${vault.id}/members/${gone.id}`)).status).toBe(
      200,
    );
    await expectErrorBody(await pull(gone, vault.id), 404, "NOT_FOUND");
    await expectErrorBody(await gone.call("GET", `/api/vaults/${vault.id}/key`), 404, "NOT_FOUND");
    await expectErrorBody(
      await gone.call("PUT", `/api/vaults/${vault.id}/entries/${e.id}`, {
        body: { name: "x", key_version: 1 },
      }),
      404,
      "NOT_FOUND",
    );
    // The entry's attachments are not the removed member's either: the personal route finds nothing.
    await expectErrorBody(
      await gone.call("GET", `/api/vault/attachments?parent_type=password&parent_id=${e.id}`),
      404,
      "NOT_FOUND",
    );
    expect(
      ((await (await gone.call("GET", "/api/vaults")).json()) as { vaults: unknown[] }).vaults,
    ).toEqual([]);
    const log = (await (await owner.call("GET", `/api/vaults/${vault.id}/activity`)).json()) as {
      activity: { action: string; target_id: string | null }[];
    };
    expect(log.activity.map((a) => a.action)).toEqual(
      expect.arrayContaining(["member.removed", "entry.added", "member.joined", "vault.created"]),
    );
    expect(JSON.stringify(log)).not.toMatch(
      /wrapped_key|encrypted_data|sealed_name|wrapped_item_key/,
    );
  });

  it("limits: vaults per user and members per vault (with open invitations) are refused with 422", async () => {
    const owner = await TestUser.create();
    const vaults: Vault[] = [];
    for (let i = 0; i < 3; i++) vaults.push(await createVault(owner));
    await expectErrorBody(
      await owner.call("POST", "/api/vaults", {
        body: { sealed_name: "bmFtZQ==", wrapped_key: wrapped() },
      }),
      422,
      "UNPROCESSABLE",
    );
    expect(
      ((await (await owner.call("GET", "/api/vaults")).json()) as { vaults: unknown[] }).vaults,
    ).toHaveLength(3);
    const v = vaults[0]!;
    for (let i = 1; i < 4; i++)
      expect(
        (
          await owner.call("POST", `/api/vaults/${v.id}/invitations`, {
            body: { email: `seat${i}-${v.id.slice(4, 12)}@example.test`, role: "viewer" },
          })
        ).status,
      ).toBe(201);
    await expectErrorBody(
      await owner.call("POST", `/api/vaults/${v.id}/invitations`, {
        body: { email: "one-more@example.test", role: "viewer" },
      }),
      422,
      "UNPROCESSABLE",
    );
  });

  it("bad input gets the error body and changes nothing", async () => {
    const owner = await TestUser.create();
    const vault = await createVault(owner);
    await expectErrorBody(
      await owner.call("POST", `/api/vaults/${vault.id}/invitations`, {
        body: { email: "x@example.test", role: "admin" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await owner.call("POST", "/api/vaults", { body: { sealed_name: "" } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(await members(owner, vault.id)).toHaveLength(1);
  });
});
