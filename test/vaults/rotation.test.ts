import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { entryBody } from "../support/fixtures";
import { addEntry, createVault, join, pull, wrapped, type Pulled } from "../support/vaults";

const b64 = (n = 48) => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(n))));
type Rotation = {
  key_version: number;
  rotating_to: number | null;
  remaining: { id: string; updated_at: string }[];
};
const rotationOf = async (res: Response) => ((await res.json()) as { rotation: Rotation }).rotation;

describe("shared vaults: key rotation behind a fence", () => {
  it("remove, rotate, commit: every entry re-encrypted, old-version writes refused, members keep access with a new copy", async () => {
    const owner = await TestUser.create();
    const editor = await TestUser.create();
    const gone = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, editor, "editor");
    await join(owner, vault.id, gone, "viewer");
    const a = await addEntry(editor, vault.id);
    const b = await addEntry(owner, vault.id);
    expect((await owner.call("DELETE", `/api/vaults/${vault.id}/members/${gone.id}`)).status).toBe(
      200,
    );

    let rot = await rotationOf(
      await owner.call("POST", `/api/vaults/${vault.id}/rotation`, { body: { from_version: 1 } }),
    );
    expect(rot).toMatchObject({ key_version: 1, rotating_to: 2 });
    expect(rot.remaining.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    // Resumable: asking again returns the same rotation, from any manager's device.
    rot = await rotationOf(
      await owner.call("POST", `/api/vaults/${vault.id}/rotation`, { body: { from_version: 1 } }),
    );
    expect(rot.rotating_to).toBe(2);

    const newData = b64(120);
    const staged = await owner.call("PUT", `/api/vaults/${vault.id}/rotation/entries`, {
      body: {
        version: 2,
        entries: rot.remaining.map((r) => ({
          ...r,
          wrapped_item_key: b64(40),
          encrypted_data: newData,
        })),
      },
    });
    expect(staged.status).toBe(200);
    expect(((await staged.json()) as { stale: string[] }).stale).toEqual([]);
    // A write under version 1 before the fence still lands, and makes that entry's copy stale.
    const early = await editor.call("PUT", `/api/vaults/${vault.id}/entries/${a.id}`, {
      body: { name: "edited before the fence", key_version: 1 },
    });
    expect(early.status).toBe(200);
    // The removed member's copy cannot be posted for the new version.
    await expectErrorBody(
      await owner.call("PUT", `/api/vaults/${vault.id}/rotation/keys`, {
        body: { version: 2, wraps: [{ user_id: gone.id, wrapped_key: wrapped() }] },
      }),
      400,
      "VALIDATION_ERROR",
    );
    await owner.call("PUT", `/api/vaults/${vault.id}/rotation/keys`, {
      body: {
        version: 2,
        wraps: [
          { user_id: owner.id, wrapped_key: wrapped() },
          { user_id: editor.id, wrapped_key: wrapped() },
        ],
      },
    });
    const refused = await expectErrorBody(
      await owner.call("POST", `/api/vaults/${vault.id}/rotation/commit`, { body: { version: 2 } }),
      409,
      "CONFLICT",
    );
    expect((refused as unknown as { remaining: string[] }).remaining).toEqual([a.id]);
    // Nothing changed: version 1 is still current.
    expect(Number((await pull(owner, vault.id)).headers.get("x-vault-key-version"))).toBe(1);

    rot = await rotationOf(await owner.call("GET", `/api/vaults/${vault.id}/rotation`));
    await owner.call("PUT", `/api/vaults/${vault.id}/rotation/entries`, {
      body: {
        version: 2,
        entries: rot.remaining.map((r) => ({
          ...r,
          wrapped_item_key: b64(40),
          encrypted_data: newData,
        })),
      },
    });
    const done = await owner.call("POST", `/api/vaults/${vault.id}/rotation/commit`, {
      body: { version: 2 },
    });
    expect(done.status).toBe(200);
    expect(await rotationOf(done)).toMatchObject({ key_version: 2, rotating_to: null });

    const res = await pull(editor, vault.id);
    expect(res.headers.get("x-vault-key-version")).toBe("2");
    const pulled = (await res.json()) as Pulled;
    expect(pulled.changes.map((c) => c.encrypted_data)).toEqual([newData, newData]);
    const key = (await (await editor.call("GET", `/api/vaults/${vault.id}/key`)).json()) as {
      key_version: number;
    };
    expect(key.key_version).toBe(2);

    // After the fence a write under the old key version is refused with the current version.
    const stale = await expectErrorBody(
      await editor.call("PUT", `/api/vaults/${vault.id}/entries/${b.id}`, {
        body: { name: "late", key_version: 1 },
      }),
      409,
      "CONFLICT",
    );
    expect((stale as unknown as { key_version: number }).key_version).toBe(2);
    await expectErrorBody(
      await editor.call("POST", `/api/vaults/${vault.id}/entries`, {
        body: { ...entryBody(), key_version: 1 },
      }),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await owner.call("PUT", `/api/vaults/${vault.id}/members/${editor.id}/key`, {
        body: { key_version: 1, wrapped_key: wrapped() },
      }),
      409,
      "CONFLICT",
    );
    expect(
      (
        await editor.call("POST", `/api/vaults/${vault.id}/entries`, {
          body: { ...entryBody(), key_version: 2 },
        })
      ).status,
    ).toBe(201);
    // Committing again is harmless (a resumed commit finishes the directory's side).
    expect(
      (
        await owner.call("POST", `/api/vaults/${vault.id}/rotation/commit`, {
          body: { version: 2 },
        })
      ).status,
    ).toBe(200);
    const log = (await (await owner.call("GET", `/api/vaults/${vault.id}/activity`)).json()) as {
      activity: { action: string }[];
    };
    expect(log.activity.map((x) => x.action)).toEqual(
      expect.arrayContaining(["key.rotation_begun", "key.rotated"]),
    );
  });

  it("a commit without the committer's own new copy, a stale from_version and an editor's rotation are refused", async () => {
    const owner = await TestUser.create();
    const editor = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, editor, "editor");
    await expectErrorBody(
      await editor.call("POST", `/api/vaults/${vault.id}/rotation`, { body: { from_version: 1 } }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await owner.call("POST", `/api/vaults/${vault.id}/rotation`, { body: { from_version: 7 } }),
      409,
      "CONFLICT",
    );
    expect(
      (await owner.call("POST", `/api/vaults/${vault.id}/rotation`, { body: { from_version: 1 } }))
        .status,
    ).toBe(200);
    await expectErrorBody(
      await owner.call("POST", `/api/vaults/${vault.id}/rotation/commit`, { body: { version: 2 } }),
      409,
      "CONFLICT",
    );
    expect(Number((await pull(owner, vault.id)).headers.get("x-vault-key-version"))).toBe(1);
  });
});

describe("shared vaults: entries and moves", () => {
  it("a member's delta pull carries only changes since its cursor; another member's device is told nothing of other vaults", async () => {
    const owner = await TestUser.create();
    const vault = await createVault(owner);
    const other = await createVault(owner);
    const first = await addEntry(owner, vault.id);
    const full = (await (await pull(owner, vault.id)).json()) as Pulled;
    expect(full.changes.map((c) => c.id)).toEqual([first.id]);
    await addEntry(owner, other.id);
    const second = await addEntry(owner, vault.id);
    const delta = (await (await pull(owner, vault.id, full.serverTimestamp)).json()) as Pulled;
    expect(delta.changes.map((c) => c.id)).toEqual([second.id]);
  });

  it("moves an entry from the personal vault into a shared one and back; a viewer cannot move into the vault", async () => {
    const owner = await TestUser.create();
    const viewer = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, viewer, "viewer");
    const made = await owner.call("POST", "/api/passwords", { body: entryBody() });
    const personalId = ((await made.json()) as { data: { id: string } }).data.id;
    const moved = await owner.call("POST", "/api/vaults/move", {
      body: {
        ...entryBody(),
        entry_id: personalId,
        from_vault: null,
        to_vault: vault.id,
        key_version: 1,
      },
    });
    expect(moved.status).toBe(200);
    const inVault = ((await moved.json()) as { id: string }).id;
    expect((await owner.call("POST", `/api/passwords/${personalId}/reveal`)).status).toBe(404);
    const seen = (await (await pull(viewer, vault.id)).json()) as Pulled;
    expect(seen.changes.map((c) => c.id)).toEqual([inVault]);

    const vMade = await viewer.call("POST", "/api/passwords", { body: entryBody() });
    const viewerEntry = ((await vMade.json()) as { data: { id: string } }).data.id;
    await expectErrorBody(
      await viewer.call("POST", "/api/vaults/move", {
        body: {
          ...entryBody(),
          entry_id: viewerEntry,
          from_vault: null,
          to_vault: vault.id,
          key_version: 1,
        },
      }),
      403,
      "FORBIDDEN",
    );
    expect((await viewer.call("POST", `/api/passwords/${viewerEntry}/reveal`)).status).toBe(200);

    const back = await owner.call("POST", "/api/vaults/move", {
      body: { ...entryBody(), entry_id: inVault, from_vault: vault.id, to_vault: null },
    });
    expect(back.status).toBe(200);
    const after = (await (await pull(viewer, vault.id)).json()) as Pulled;
    expect(after.changes).toEqual([]);
  });

  it("deleting a vault with entries needs entries=delete; then members lose it", async () => {
    const owner = await TestUser.create();
    const editor = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, editor, "editor");
    await addEntry(editor, vault.id);
    await expectErrorBody(
      await editor.call("DELETE", `/api/vaults/${vault.id}?entries=delete`),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(await owner.call("DELETE", `/api/vaults/${vault.id}`), 409, "CONFLICT");
    expect((await owner.call("DELETE", `/api/vaults/${vault.id}?entries=delete`)).status).toBe(200);
    await expectErrorBody(await pull(editor, vault.id), 404, "NOT_FOUND");
  });
});
