import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";

type Wrap = {
  key_version: number;
  revision: number;
  kdf_iterations: number;
  wrapped_key: string;
  updated_at: string;
};

const wrapOf = (n: number) => btoa(String.fromCharCode(...new Array(96).fill(n)));
const body = (revision: number, over: Record<string, unknown> = {}) => ({
  key_version: 1,
  revision,
  kdf_iterations: 600_000,
  wrapped_key: wrapOf(revision),
  ...over,
});

const SELF_fetch = (path: string) => SELF.fetch(`https://vault.test${path}`);

async function put(user: TestUser, b: unknown) {
  return user.call("PUT", "/api/account-key", { body: b });
}
async function stored(user: TestUser): Promise<Wrap | null> {
  const res = await user.call("GET", "/api/account-key");
  expect(res.status).toBe(200);
  return ((await res.json()) as { account_key: Wrap | null }).account_key;
}

describe("account key wrap", () => {
  it("null before the first wrap; the first is revision 1; each next one is stored + 1", async () => {
    const user = await TestUser.create();
    expect(await stored(user)).toBeNull();
    const first = await put(user, body(1, { key_version: 3 }));
    expect(first.status).toBe(200);
    expect(((await first.json()) as { account_key: Wrap }).account_key).toMatchObject({
      revision: 1,
      key_version: 3,
    });
    expect(await stored(user)).toMatchObject({
      key_version: 3,
      revision: 1,
      kdf_iterations: 600_000,
      wrapped_key: wrapOf(1),
    });
    const next = await put(user, body(2, { key_version: 3, kdf_iterations: 700_000 }));
    expect(next.status).toBe(200);
    expect(await stored(user)).toMatchObject({
      revision: 2,
      kdf_iterations: 700_000,
      wrapped_key: wrapOf(2),
    });
  });

  it("a stale revision, a skipped one, a second first wrap or a lower key version is 409 and changes nothing", async () => {
    const user = await TestUser.create();
    expect((await put(user, body(2))).status).toBe(409);
    expect(await stored(user)).toBeNull();
    expect((await put(user, body(1, { key_version: 4 }))).status).toBe(200);
    const before = await stored(user);
    for (const b of [
      body(1, { key_version: 4 }),
      body(3, { key_version: 4 }),
      body(2, { key_version: 3 }),
    ]) {
      const err = (await expectErrorBody(await put(user, b), 409, "CONFLICT")) as unknown as {
        revision: number;
        key_version: number;
      };
      expect(err).toMatchObject({ revision: 1, key_version: 4 });
    }
    expect(await stored(user)).toEqual(before);
  });

  it("invalid bodies are 400 naming the field and change nothing", async () => {
    const user = await TestUser.create();
    expect((await put(user, body(1))).status).toBe(200);
    const before = await stored(user);
    const cases: [unknown, string][] = [
      [{}, "key_version"],
      [body(2, { key_version: 0 }), "key_version"],
      [body(2, { key_version: 1.5 }), "key_version"],
      [body(2, { revision: "2" }), "revision"],
      [body(2, { kdf_iterations: 1000 }), "kdf_iterations"],
      [body(2, { kdf_iterations: 20_000_000 }), "kdf_iterations"],
      [body(2, { wrapped_key: "not base64!" }), "wrapped_key"],
      [body(2, { wrapped_key: "" }), "wrapped_key"],
      [body(2, { wrapped_key: "A".repeat(600) }), "wrapped_key"],
    ];
    for (const [b, field] of cases) {
      const err = await expectErrorBody(await put(user, b), 400, "VALIDATION_ERROR");
      expect(
        err.details?.map((d) => d.field),
        JSON.stringify(b),
      ).toContain(field);
    }
    expect(await stored(user)).toEqual(before);
  });

  it("is the caller's own: another user neither reads nor overwrites it", async () => {
    const alice = await TestUser.create();
    const bob = await TestUser.create();
    expect((await put(alice, body(1))).status).toBe(200);
    expect(await stored(bob)).toBeNull();
    expect((await put(bob, body(1, { wrapped_key: wrapOf(9) }))).status).toBe(200);
    expect((await stored(alice))?.wrapped_key).toBe(wrapOf(1));
    expect((await stored(bob))?.wrapped_key).toBe(wrapOf(9));
  });

  it("needs a session and a CSRF token to write", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("PUT", "/api/account-key", { body: body(1), csrf: false }),
      403,
      "FORBIDDEN",
    );
    expect(await stored(user)).toBeNull();
    const anon = await SELF_fetch("/api/account-key");
    expect(anon.status).toBe(401);
  });
});
