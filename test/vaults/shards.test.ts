import { describe, expect, it } from "vitest";
import { pickShard } from "../../src/db/shards";
import { expectErrorBody } from "../support/auth";
import {
  first,
  holders,
  inDirectory,
  last,
  onlyOn,
  shards,
  userOn,
} from "../support/shard-placement";
import { addEntry, createVault, join, pull, type Pulled } from "../support/vaults";

/**
 * Where a shared vault's rows live (docs/scale.md, "Shared vaults across shards"): membership in
 * the directory, entries, key versions and activity on the vault's own home shard, whichever
 * shards its members are on. Under VAULT_SHARDS=3 the members here sit on different shards.
 */
describe("shared vaults across shards", () => {
  it("members on different shards read and write one vault on its home shard; a removed one is refused", async () => {
    const owner = await userOn(first);
    const editor = await userOn(last);
    const vault = await createVault(owner);
    await join(owner, vault.id, editor, "editor");
    const a = await addEntry(editor, vault.id);
    const b = await addEntry(owner, vault.id);
    const home = pickShard(vault.id, shards);
    expect(
      await holders(
        "passwords",
        "id = ? AND user_id = ? AND vault_id = ?",
        a.id,
        vault.id,
        vault.id,
      ),
    ).toEqual(onlyOn(home));
    expect(
      await holders("vault_key_versions", "vault_id = ? AND state = 'current'", vault.id),
    ).toEqual(onlyOn(home));
    expect(
      await holders("vault_activity", "vault_id = ? AND target_id = ?", vault.id, b.id),
    ).toEqual(onlyOn(home));
    expect(
      await holders("vault_members", "vault_id = ? AND user_id = ?", vault.id, editor.id),
    ).toEqual(inDirectory());
    expect(await holders("vaults", "id = ?", vault.id)).toEqual(inDirectory());
    for (const who of [owner, editor]) {
      const pulled = (await (await pull(who, vault.id)).json()) as Pulled;
      expect(pulled.changes.map((c) => c.id).sort()).toEqual([a.id, b.id].sort());
    }
    expect(
      (await owner.call("DELETE", `/api/vaults/${vault.id}/members/${editor.id}`)).status,
    ).toBe(200);
    await expectErrorBody(await pull(editor, vault.id), 404, "NOT_FOUND");
  });

  it("a rotation begun on one member's device is resumed and committed from another's on another shard", async () => {
    const owner = await userOn(first);
    const manager = await userOn(last);
    const vault = await createVault(owner);
    await join(owner, vault.id, manager, "manager");
    const e = await addEntry(owner, vault.id);
    expect(
      (await owner.call("POST", `/api/vaults/${vault.id}/rotation`, { body: { from_version: 1 } }))
        .status,
    ).toBe(200);
    const state = (await (
      await manager.call("GET", `/api/vaults/${vault.id}/rotation`)
    ).json()) as {
      rotation: { rotating_to: number; remaining: { id: string; updated_at: string }[] };
    };
    expect(state.rotation.rotating_to).toBe(2);
    expect(state.rotation.remaining.map((r) => r.id)).toEqual([e.id]);
    const b64 = btoa("x".repeat(60));
    await manager.call("PUT", `/api/vaults/${vault.id}/rotation/entries`, {
      body: {
        version: 2,
        entries: state.rotation.remaining.map((r) => ({
          ...r,
          wrapped_item_key: b64,
          encrypted_data: b64,
        })),
      },
    });
    await manager.call("PUT", `/api/vaults/${vault.id}/rotation/keys`, {
      body: {
        version: 2,
        wraps: [
          { user_id: owner.id, wrapped_key: b64 },
          { user_id: manager.id, wrapped_key: b64 },
        ],
      },
    });
    const done = await manager.call("POST", `/api/vaults/${vault.id}/rotation/commit`, {
      body: { version: 2 },
    });
    expect(done.status).toBe(200);
    expect((await pull(owner, vault.id)).headers.get("x-vault-key-version")).toBe("2");
    const mine = (await (await owner.call("GET", `/api/vaults/${vault.id}/key`)).json()) as {
      key_version: number;
    };
    expect(mine.key_version).toBe(2);
  });
});
