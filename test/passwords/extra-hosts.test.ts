import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { at, create, hex, importEntry, push, registerDevice } from "../sync/helpers";

/**
 * Extra addresses' blind host hashes (`host_hashes`, table password_hosts): `match` finds an entry
 * by any of them when the request names the page's hashed hosts. The hashes here are random hex:
 * the server only compares them, it cannot compute them.
 */
type Matches = { matches: { id: string }[] };

async function matchIds(user: TestUser, url: string, hashes: string[] = []) {
  const q = `url=${encodeURIComponent(url)}${hashes.length ? `&host_hashes=${hashes.join(",")}` : ""}`;
  const res = await user.call("GET", `/api/passwords/match?${q}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Matches).matches.map((m) => m.id).sort();
}

async function storedHashes(userId: string, id: string) {
  const rows = await env.DB.prepare(
    "SELECT host_hash FROM password_hosts WHERE user_id = ? AND password_id = ? ORDER BY host_hash",
  )
    .bind(userId, id)
    .all<{ host_hash: string }>();
  return rows.results.map((r) => r.host_hash);
}

describe("extra addresses in match", () => {
  it("matches an entry by any of its hashes, and still by its own host; a request without hashes keeps today's answer", async () => {
    const user = await TestUser.create();
    const [second, third] = [hex(), hex()];
    const { id } = await createEntry(user, {
      website: "main.example.com",
      host_hashes: [second, third],
    });
    expect(await storedHashes(user.id, id)).toEqual([second, third].sort());
    expect(await matchIds(user, "https://other.example.org/login", [hex(), second])).toEqual([id]);
    expect(await matchIds(user, "https://other.example.org/login")).toEqual([]);
    expect(await matchIds(user, "https://main.example.com/")).toEqual([id]);
    // Found once, whichever way it matched.
    expect(await matchIds(user, "https://main.example.com/", [third])).toEqual([id]);
  });

  it("never matches another user's hashes, even identical ones", async () => {
    const a = await TestUser.create();
    const b = await TestUser.create();
    const shared = hex();
    const mine = await createEntry(a, { website: "a.example.com", host_hashes: [shared] });
    const theirs = await createEntry(b, { website: "b.example.com", host_hashes: [shared] });
    expect(await matchIds(a, "https://x.example.net/", [shared])).toEqual([mine.id]);
    expect(await matchIds(b, "https://x.example.net/", [shared])).toEqual([theirs.id]);
  });

  it("an edit that sends hashes replaces them; one that does not keeps them; deleting drops them", async () => {
    const user = await TestUser.create();
    const [old, fresh] = [hex(), hex()];
    const { id } = await createEntry(user, { host_hashes: [old] });
    expect(
      (await user.call("PATCH", `/api/passwords/${id}`, { body: { name: "Renamed" } })).status,
    ).toBe(200);
    expect(await storedHashes(user.id, id)).toEqual([old]);
    expect(
      (await user.call("PATCH", `/api/passwords/${id}`, { body: { host_hashes: [fresh] } })).status,
    ).toBe(200);
    expect(await matchIds(user, "https://elsewhere.example/", [old])).toEqual([]);
    expect(await matchIds(user, "https://elsewhere.example/", [fresh])).toEqual([id]);
    expect(
      (await user.call("PATCH", `/api/passwords/${id}`, { body: { host_hashes: [] } })).status,
    ).toBe(200);
    expect(await storedHashes(user.id, id)).toEqual([]);
    expect(
      (await user.call("PATCH", `/api/passwords/${id}`, { body: { host_hashes: [fresh] } })).status,
    ).toBe(200);
    expect((await user.call("DELETE", `/api/passwords/${id}`)).status).toBe(200);
    expect(await storedHashes(user.id, id)).toEqual([]);
    expect(await matchIds(user, "https://elsewhere.example/", [fresh])).toEqual([]);
  });

  it("refuses too many or malformed hashes with 400 VALIDATION_ERROR and stores nothing", async () => {
    const user = await TestUser.create();
    const body = (host_hashes: unknown) => ({
      body: {
        name: "X",
        wrapped_item_key: btoa("k".repeat(40)),
        encrypted_data: btoa("d".repeat(90)),
        name_hash: hex(),
        username_hash: hex(),
        host_hashes,
      },
    });
    await expectErrorBody(
      await user.call("POST", "/api/passwords", body(Array.from({ length: 21 }, () => hex()))),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("POST", "/api/passwords", body(["example.com"])),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("POST", "/api/passwords", body([hex().toUpperCase()])),
      400,
      "VALIDATION_ERROR",
    );
    const count = await env.DB.prepare("SELECT count(*) AS n FROM passwords WHERE user_id = ?")
      .bind(user.id)
      .first<number>("n");
    expect(count).toBe(0);
    const { id } = await createEntry(user, { host_hashes: [hex()] });
    await expectErrorBody(
      await user.call("PATCH", `/api/passwords/${id}`, { body: { host_hashes: "nope" } }),
      400,
      "VALIDATION_ERROR",
    );
    const tooMany = Array.from({ length: 21 }, () => hex()).join(",");
    await expectErrorBody(
      await user.call("GET", `/api/passwords/match?url=a.example&host_hashes=${tooMany}`),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("GET", `/api/passwords/match?url=a.example&host_hashes=zz`),
      400,
      "VALIDATION_ERROR",
    );
    expect((await storedHashes(user.id, id)).length).toBe(1);
  });

  it("tags a match answer by the hashes too: other hashes are another answer", async () => {
    const user = await TestUser.create();
    const h = hex();
    await createEntry(user, { host_hashes: [h] });
    const plain = await user.call("GET", `/api/passwords/match?url=a.example.org`);
    const hashed = await user.call(
      "GET",
      `/api/passwords/match?url=a.example.org&host_hashes=${h}`,
    );
    expect(plain.headers.get("etag")).not.toBe(hashed.headers.get("etag"));
    const again = await user.call(
      "GET",
      `/api/passwords/match?url=a.example.org&host_hashes=${h}`,
      { headers: { "if-none-match": hashed.headers.get("etag")! } },
    );
    expect(again.status).toBe(304);
  });

  it("import stores each entry's hashes, export carries them back", async () => {
    const user = await TestUser.create();
    const h = hex();
    const res = await user.call("POST", "/api/passwords/import", {
      body: {
        provider: "generic",
        entries: [
          importEntry({ name: "Two sites", website: "one.example", host_hashes: [h] }),
          importEntry({ name: "Plain" }),
        ],
      },
    });
    expect(res.status).toBe(200);
    const [found] = await matchIds(user, "https://two.example/", [h]);
    expect(found).toBeTruthy();
    const bad = await user.call("POST", "/api/passwords/import", {
      body: { provider: "generic", entries: [importEntry({ host_hashes: ["x"] })] },
    });
    await expectErrorBody(bad, 400, "VALIDATION_ERROR");
    const fp = await registerDevice(user.id, "trusted");
    const doc = (await (
      await user.call("GET", "/api/passwords/export", { headers: { "x-device-fingerprint": fp } })
    ).json()) as { entries: { name: string; host_hashes?: string[] }[] };
    expect(doc.entries.find((e) => e.name === "Two sites")!.host_hashes).toEqual([h]);
    expect(doc.entries.find((e) => e.name === "Plain")!.host_hashes).toBeUndefined();
  });

  it("sync push: a create and an update carry hashes; a lost update and a failed mutation change nothing", async () => {
    const user = await TestUser.create();
    const [h1, h2, h3] = [hex(), hex(), hex()];
    const id = crypto.randomUUID();
    const first = await push(user, [create(id, { host_hashes: [h1] }, at(-60_000))]);
    expect(first.results[0]!.status).toBe("applied");
    expect(await storedHashes(user.id, id)).toEqual([h1]);
    // Older than the stored entry: the server wins, the hashes stay.
    const lost = await push(user, [
      { action: "update", id, clientUpdatedAt: at(-120_000), data: { host_hashes: [h2] } },
    ]);
    expect(lost.results[0]!.status).toBe("conflict_server_wins");
    expect(await storedHashes(user.id, id)).toEqual([h1]);
    const bad = await push(user, [
      { action: "update", id, clientUpdatedAt: at(), data: { host_hashes: ["bad"] } },
    ]);
    expect(bad.results[0]).toMatchObject({ status: "failed", code: "VALIDATION_ERROR" });
    const applied = await push(user, [
      { action: "update", id, clientUpdatedAt: at(), data: { host_hashes: [h3] } },
    ]);
    expect(applied.results[0]!.status).toBe("applied");
    expect(await storedHashes(user.id, id)).toEqual([h3]);
    expect(await matchIds(user, "https://third.example/", [h3])).toEqual([id]);
    const gone = await push(user, [{ action: "delete", id, clientUpdatedAt: at(1) }]);
    expect(gone.results[0]!.status).toBe("applied");
    expect(await storedHashes(user.id, id)).toEqual([]);
  });

  it("a create over another user's id stores no hashes for anyone", async () => {
    const a = await TestUser.create();
    const b = await TestUser.create();
    const theirs = await createEntry(b, { host_hashes: [hex()] });
    const h = hex();
    const res = await push(a, [create(theirs.id, { host_hashes: [h] })]);
    expect(res.results[0]!.status).toBe("failed");
    expect(await storedHashes(a.id, theirs.id)).toEqual([]);
    expect((await storedHashes(b.id, theirs.id)).length).toBe(1);
  });
});
