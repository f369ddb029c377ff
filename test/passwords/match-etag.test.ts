import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";

const MATCH =
  "/api/passwords/match?url=" + encodeURIComponent("https://login.tagged.example.com/signin");

async function match(user: TestUser, ifNoneMatch?: string) {
  return user.call("GET", MATCH, { headers: ifNoneMatch ? { "if-none-match": ifNoneMatch } : {} });
}

describe("match revalidation (ETag / If-None-Match)", () => {
  it("answers 304 with no body while the vault is unchanged, and 200 with a new tag after any write", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user, { website: "tagged.example.com" });
    const first = await match(user);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    expect(
      ((await first.json()) as { matches: { id: string }[] }).matches.map((m) => m.id),
    ).toEqual([id]);

    const again = await match(user, etag);
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect((await match(user, `"other", ${etag.slice(2)}`)).status).toBe(304);
    expect((await match(user, "*")).status).toBe(304);

    // An edit anywhere in the vault (even of an entry for another site) changes the tag.
    const other = await createEntry(user, { website: "elsewhere.example.com" });
    const afterCreate = await match(user, etag);
    expect(afterCreate.status).toBe(200);
    const etag2 = afterCreate.headers.get("etag")!;
    expect(etag2).not.toBe(etag);

    expect(
      (await user.call("PATCH", `/api/passwords/${id}`, { body: { name: "Renamed" } })).status,
    ).toBe(200);
    const afterEdit = await match(user, etag2);
    expect(afterEdit.status).toBe(200);
    expect(((await afterEdit.json()) as { matches: { name: string }[] }).matches[0].name).toBe(
      "Renamed",
    );
    const etag3 = afterEdit.headers.get("etag")!;

    expect((await user.call("DELETE", `/api/passwords/${id}`)).status).toBe(200);
    const afterDelete = await match(user, etag3);
    expect(afterDelete.status).toBe(200);
    expect(((await afterDelete.json()) as { matches: unknown[] }).matches).toEqual([]);
    expect((await match(user, afterDelete.headers.get("etag")!)).status).toBe(304);
    expect(other.id).toBeTruthy();
  });

  it("never validates another user's tag, even for the same host and an identical vault", async () => {
    const a = await TestUser.create();
    const b = await TestUser.create();
    const tagA = (await match(a)).headers.get("etag")!;
    const res = await match(b, tagA);
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).not.toBe(tagA);
  });

  it("keeps validating the input first: a bad url is 400 whatever the If-None-Match", async () => {
    const user = await TestUser.create();
    const res = await user.call("GET", "/api/passwords/match?url=", {
      headers: { "if-none-match": "*" },
    });
    expect(res.status).toBe(400);
  });
});
