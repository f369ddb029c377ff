import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { entryBody } from "../support/fixtures";
import {
  addEntry,
  createVault,
  join,
  members,
  pull,
  type Pulled,
  type Vault,
} from "../support/vaults";

// The everyday actions the web app offers on a vault (role, ownership, leaving, deleting, moving
// an entry): every refusal has the spec's error body and changes nothing.
const roleOf = async (viewer: TestUser, vaultId: string, who: TestUser) =>
  (await members(viewer, vaultId)).find((m) => m.user_id === who.id)?.role;

describe("shared vaults: roles and ownership", () => {
  it("a role change: bad input, unknown member, a role that may not do it, a manager touching an owner", async () => {
    const owner = await TestUser.create();
    const manager = await TestUser.create();
    const editor = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, manager, "manager");
    await join(owner, vault.id, editor, "editor");
    const patch = (by: TestUser, who: string, body: unknown) =>
      by.call("PATCH", `/api/vaults/${vault.id}/members/${who}`, { body });

    await expectErrorBody(
      await patch(owner, editor.id, { role: "admin" }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(await patch(owner, editor.id, {}), 400, "VALIDATION_ERROR");
    await expectErrorBody(await patch(owner, "nobody", { role: "viewer" }), 404, "NOT_FOUND");
    // An editor manages nobody; a manager may not change an owner nor make one.
    await expectErrorBody(await patch(editor, manager.id, { role: "viewer" }), 403, "FORBIDDEN");
    await expectErrorBody(await patch(manager, owner.id, { role: "manager" }), 403, "FORBIDDEN");
    await expectErrorBody(await patch(manager, editor.id, { role: "owner" }), 403, "FORBIDDEN");
    expect(await roleOf(owner, vault.id, editor)).toBe("editor");
    expect(await roleOf(owner, vault.id, owner)).toBe("owner");

    // What may be done is done: a manager makes the editor a viewer, the owner makes them a manager.
    expect((await patch(manager, editor.id, { role: "viewer" })).status).toBe(200);
    expect(await roleOf(editor, vault.id, editor)).toBe("viewer");
    await expectErrorBody(
      await editor.call("POST", `/api/vaults/${vault.id}/entries`, {
        body: { ...entryBody(), key_version: 1 },
      }),
      403,
      "FORBIDDEN",
    );
    // A second owner may be demoted; then the last one may not.
    expect((await patch(owner, manager.id, { role: "owner" })).status).toBe(200);
    expect((await patch(manager, owner.id, { role: "editor" })).status).toBe(200);
    await expectErrorBody(await patch(manager, manager.id, { role: "manager" }), 409, "CONFLICT");
    expect(await roleOf(manager, vault.id, manager)).toBe("owner");
  });

  it("a transfer: owner only, to a present member other than oneself; the old owner is a manager after", async () => {
    const owner = await TestUser.create();
    const manager = await TestUser.create();
    const stranger = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, manager, "manager");
    const transfer = (by: TestUser, body: unknown) =>
      by.call("POST", `/api/vaults/${vault.id}/transfer`, { body });

    await expectErrorBody(await transfer(owner, {}), 400, "VALIDATION_ERROR");
    await expectErrorBody(await transfer(owner, { user_id: stranger.id }), 404, "NOT_FOUND");
    await expectErrorBody(await transfer(owner, { user_id: owner.id }), 409, "CONFLICT");
    await expectErrorBody(await transfer(manager, { user_id: manager.id }), 403, "FORBIDDEN");
    await expectErrorBody(await transfer(stranger, { user_id: stranger.id }), 404, "NOT_FOUND");
    expect(await roleOf(owner, vault.id, owner)).toBe("owner");
    expect(await roleOf(owner, vault.id, manager)).toBe("manager");

    const res = await transfer(owner, { user_id: manager.id });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { vault: Vault }).vault.role).toBe("manager");
    expect(await roleOf(manager, vault.id, manager)).toBe("owner");
    // The old owner, a manager now, may no longer hand the vault on.
    await expectErrorBody(await transfer(owner, { user_id: owner.id }), 403, "FORBIDDEN");
  });
});

describe("shared vaults: leaving and deleting", () => {
  it("a member leaves: their copy goes and every route refuses them; leaving twice is not found", async () => {
    const owner = await TestUser.create();
    const viewer = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, viewer, "viewer");
    const e = await addEntry(owner, vault.id);
    expect(
      (await viewer.call("DELETE", `/api/vaults/${vault.id}/members/${viewer.id}`)).status,
    ).toBe(200);
    expect((await members(owner, vault.id)).map((m) => m.user_id)).toEqual([owner.id]);
    await expectErrorBody(
      await viewer.call("GET", `/api/vaults/${vault.id}/key`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(await pull(viewer, vault.id), 404, "NOT_FOUND");
    await expectErrorBody(
      await viewer.call("DELETE", `/api/vaults/${vault.id}/members/${viewer.id}`),
      404,
      "NOT_FOUND",
    );
    // The log tells a manager that someone left (what the web app offers a new key for).
    const log = (await (await owner.call("GET", `/api/vaults/${vault.id}/activity`)).json()) as {
      activity: { action: string; target_id: string | null }[];
    };
    expect(log.activity[0]).toMatchObject({ action: "member.left", target_id: viewer.id });
    const left = (await (await pull(owner, vault.id)).json()) as Pulled;
    expect(left.changes.map((c) => c.id)).toEqual([e.id]);
  });

  it("delete: a manager is refused, an unknown vault is not found; the owner's delete takes its entries", async () => {
    const owner = await TestUser.create();
    const manager = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, manager, "manager");
    await addEntry(manager, vault.id);
    await expectErrorBody(
      await manager.call("DELETE", `/api/vaults/${vault.id}?entries=delete`),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await owner.call("DELETE", `/api/vaults/${vault.id}?entries=all`),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await owner.call("DELETE", "/api/vaults/vlt_nothing?entries=delete"),
      404,
      "NOT_FOUND",
    );
    const kept = (await (await pull(manager, vault.id)).json()) as Pulled;
    expect(kept.changes.filter((c) => !c._deleted)).toHaveLength(1);

    expect((await owner.call("DELETE", `/api/vaults/${vault.id}?entries=delete`)).status).toBe(200);
    for (const who of [owner, manager]) {
      await expectErrorBody(await pull(who, vault.id), 404, "NOT_FOUND");
      const list = (await (await who.call("GET", "/api/vaults")).json()) as { vaults: Vault[] };
      expect(list.vaults).toEqual([]);
    }
  });
});

describe("shared vaults: entry writes a move is made of", () => {
  it("a viewer may neither delete an entry nor move one out; a deleted entry is gone for every member", async () => {
    const owner = await TestUser.create();
    const viewer = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, viewer, "viewer");
    const e = await addEntry(owner, vault.id);
    await expectErrorBody(
      await viewer.call("DELETE", `/api/vaults/${vault.id}/entries/${e.id}`),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await viewer.call("POST", "/api/vaults/move", {
        body: { ...entryBody(), entry_id: e.id, from_vault: vault.id, to_vault: null },
      }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await owner.call("DELETE", `/api/vaults/${vault.id}/entries/not-an-entry`),
      404,
      "NOT_FOUND",
    );
    const still = (await (await pull(viewer, vault.id)).json()) as Pulled;
    expect(still.changes.filter((c) => !c._deleted).map((c) => c.id)).toEqual([e.id]);
    expect((await owner.call("DELETE", `/api/vaults/${vault.id}/entries/${e.id}`)).status).toBe(
      200,
    );
    const after = (await (await pull(viewer, vault.id)).json()) as Pulled;
    expect(after.changes.filter((c) => !c._deleted)).toEqual([]);
  });

  it("a move into a vault under a stale key version, or naming one vault twice, changes nothing", async () => {
    const owner = await TestUser.create();
    const vault = await createVault(owner);
    const made = await owner.call("POST", "/api/passwords", { body: entryBody() });
    const personalId = ((await made.json()) as { data: { id: string } }).data.id;
    const move = (body: Record<string, unknown>) =>
      owner.call("POST", "/api/vaults/move", {
        body: { ...entryBody(), entry_id: personalId, from_vault: null, ...body },
      });
    await expectErrorBody(await move({ to_vault: vault.id, key_version: 7 }), 409, "CONFLICT");
    await expectErrorBody(await move({ to_vault: vault.id }), 400, "VALIDATION_ERROR");
    await expectErrorBody(await move({ to_vault: null }), 400, "VALIDATION_ERROR");
    expect((await owner.call("POST", `/api/passwords/${personalId}/reveal`)).status).toBe(200);
    const none = (await (await pull(owner, vault.id)).json()) as Pulled;
    expect(none.changes).toEqual([]);
  });
});
