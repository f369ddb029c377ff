import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { at, create, pull, push, row } from "../sync/helpers";

describe("an entry's passkey flags (has_passkey, passkey_label)", () => {
  it("sync push keeps them on create and update, and pull and the listing report them", async () => {
    const user = await TestUser.create();
    const id = crypto.randomUUID();
    const made = await push(user, [
      create(id, { has_passkey: true, passkey_label: "webauthn.example" }),
    ]);
    expect(made.results[0]).toMatchObject({ id, status: "applied" });
    expect(await row(id)).toMatchObject({ has_passkey: 1, passkey_label: "webauthn.example" });
    const listed = (await (await user.call("GET", "/api/passwords")).json()) as {
      data: { id: string; has_passkey: boolean; passkey_label: string | null }[];
    };
    expect(listed.data.find((e) => e.id === id)).toMatchObject({
      has_passkey: true,
      passkey_label: "webauthn.example",
    });
    const pulled = await pull(user);
    expect(pulled.changes.find((c) => c.id === id)).toMatchObject({ has_passkey: true });

    // The last passkey deleted: the entry says so.
    const upd = await push(user, [
      {
        action: "update",
        id,
        data: { has_passkey: false, passkey_label: null },
        clientUpdatedAt: at(1000),
      },
    ]);
    expect(upd.results[0]).toMatchObject({ status: "applied" });
    expect(await row(id)).toMatchObject({ has_passkey: 0, passkey_label: null });
  });

  it("refuses a flag of the wrong type in a mutation, and applies nothing of it", async () => {
    const user = await TestUser.create();
    const id = crypto.randomUUID();
    const res = await push(user, [create(id, { has_passkey: "yes" })]);
    expect(res.results[0]).toMatchObject({ id, status: "failed", code: "VALIDATION_ERROR" });
    expect(await row(id)).toBeNull();
  });

  it("the REST create takes them too; without them an entry has none", async () => {
    const user = await TestUser.create();
    const body = {
      name: "Plain",
      website: "plain.example",
      wrapped_item_key: btoa("k".repeat(40)),
      encrypted_data: btoa("d".repeat(90)),
      name_hash: "aa",
      username_hash: "bb",
    };
    const plain = (await (await user.call("POST", "/api/passwords", { body })).json()) as {
      data: { id: string };
    };
    expect(await row(plain.data.id)).toMatchObject({ has_passkey: 0, passkey_label: null });
    const withKey = (await (
      await user.call("POST", "/api/passwords", {
        body: { ...body, has_passkey: true, passkey_label: "plain.example" },
      })
    ).json()) as { data: { id: string } };
    expect(await row(withKey.data.id)).toMatchObject({
      has_passkey: 1,
      passkey_label: "plain.example",
    });
  });
});
