import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { countRows, importEntry, row } from "../sync/helpers";

// Import with ids already in use: an entry's envelope is bound to its id, so such an entry is never
// stored under another id nor over the one in place; it is named by its position in the request,
// so a client can seal it again under a new id. Nothing else of its batch is lost.
type ImportResult = { success: boolean; imported: number; errors: string[] };

const post = async (user: TestUser, entries: Record<string, unknown>[]) => {
  const res = await user.call("POST", "/api/passwords/import", {
    body: { provider: "generic", entries },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as ImportResult;
};

describe("import with ids in use", () => {
  it("names each entry whose id is taken (own, deleted or another's) by position, stores the rest, overwrites nothing", async () => {
    const user = await TestUser.create();
    const other = await TestUser.create();
    const theirs = await createEntry(other);
    const [kept, gone] = [crypto.randomUUID(), crypto.randomUUID()];
    expect(
      await post(user, [
        importEntry({ id: kept, name: "Kept" }),
        importEntry({ id: gone, name: "Gone" }),
      ]),
    ).toMatchObject({ success: true, imported: 2 });
    expect((await user.call("DELETE", `/api/passwords/${gone}`)).status).toBe(200);

    const fresh = crypto.randomUUID();
    const result = await post(user, [
      importEntry({ id: fresh, name: "Fresh" }),
      importEntry({ id: kept, name: "Over kept?" }),
      importEntry({ name: "No id" }),
      importEntry({ id: theirs.id, name: "Over theirs?" }),
      importEntry({ id: gone, name: "Over deleted?" }),
    ]);
    expect(result).toEqual({
      success: false,
      imported: 2,
      encryption_version: 3,
      errors: [
        "Entries 2, 4, 5 were not imported: their ids are already in use (an entry's envelope is bound to its id: seal them again under a new id)",
      ],
    });
    expect((await row(fresh))?.name).toBe("Fresh");
    expect((await row(kept))?.name).toBe("Kept");
    expect((await row(theirs.id))?.user_id).toBe(other.id);
    expect((await row(gone))?.name).toBe("Gone");
    await expect(countRows(user.id)).resolves.toBe(3);
    await expect(countRows(other.id)).resolves.toBe(1);
  });

  it("an id named twice in one request: the first goes in, the second is named, and the batch's other entries are not lost", async () => {
    const user = await TestUser.create();
    const twice = crypto.randomUUID();
    const others = Array.from({ length: 5 }, (_, i) => importEntry({ name: `Other ${i}` }));
    const result = await post(user, [
      importEntry({ id: twice, name: "First" }),
      ...others,
      importEntry({ id: twice, name: "Second" }),
    ]);
    expect(result).toEqual({
      success: false,
      imported: 6,
      encryption_version: 3,
      errors: [
        "Entry 7 was not imported: its id is already in use (an entry's envelope is bound to its id: seal it again under a new id)",
      ],
    });
    expect((await row(twice))?.name).toBe("First");
    await expect(countRows(user.id)).resolves.toBe(6);
  });

  it("entries without ids are never skipped: the same body sent twice stores every entry twice", async () => {
    const user = await TestUser.create();
    const body = [importEntry({ name: "A" }), importEntry({ name: "B" })];
    expect(await post(user, body)).toMatchObject({ success: true, imported: 2, errors: [] });
    expect(await post(user, body)).toMatchObject({ success: true, imported: 2, errors: [] });
    await expect(countRows(user.id)).resolves.toBe(4);
  });

  it("a long list of taken ids names the first twenty and counts the rest", async () => {
    const user = await TestUser.create();
    const ids = Array.from({ length: 23 }, () => crypto.randomUUID());
    const entries = ids.map((id) => importEntry({ id }));
    expect(await post(user, entries)).toMatchObject({ imported: 23 });
    const again = await post(user, entries);
    expect(again.imported).toBe(0);
    expect(again.errors).toEqual([
      `Entries ${Array.from({ length: 20 }, (_, i) => i + 1).join(", ")} and 3 more were not imported: their ids are already in use (an entry's envelope is bound to its id: seal them again under a new id)`,
    ]);
  });
});
