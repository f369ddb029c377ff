import { afterEach, describe, expect, it, vi } from "vitest";
import { server } from "./support/server";
import { ApiClient } from "../../core/api/api";
import { Revalidation } from "../../core/api/revalidate";
import { ONE_SHOT } from "./support/api";
import { newUser } from "./support/browser";
import { deriveVaultKeys, seedEntries } from "./support/extension";

const base = server().baseUrl;

afterEach(() => vi.unstubAllGlobals());

/** The real fetch, noting for each match lookup whether it was conditional and what the server answered. */
function recordLookups() {
  const real = globalThis.fetch;
  const seen: { ifNoneMatch: string | null; status: number }[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    // One connection a call: the runtime closes idle connections sooner than Node's fetch reuses them.
    const res = await real(url, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), ...ONE_SHOT },
    });
    if (url.includes("/api/passwords/match"))
      seen.push({
        ifNoneMatch: new Headers(init.headers).get("if-none-match"),
        status: res.status,
      });
    return res;
  });
  return seen;
}

describe("conditional GETs in the API client", () => {
  it("asks the real worker again with If-None-Match, takes its 304 as the kept answer, and a change elsewhere as a new one", async () => {
    const user = await newUser("revalidate");
    const keys = await deriveVaultKeys("revalidate passphrase", user.sub);
    const seed = (name: string) =>
      seedEntries(base, user, keys, [
        { name, website: "kept.test", username: name, password: `${name}-pass` },
      ]);
    await seed("first");
    const seen = recordLookups();
    const api = new ApiClient(base, async () => user.token);
    const url = "https://kept.test/login";

    const one = await api.match(url);
    expect(one.matches.map((m) => m.name)).toEqual(["first"]);
    expect(await api.match(url)).toEqual(one);
    await seed("second");
    const two = await api.match(url);
    expect(two.matches.map((m) => m.name).sort()).toEqual(["first", "second"]);
    expect(await api.match(url)).toEqual(two);

    expect(seen.map((s) => s.status)).toEqual([200, 304, 200, 304]);
    expect(seen[0]!.ifNoneMatch).toBeNull();
    expect(seen[1]!.ifNoneMatch).toBeTruthy();
    expect(seen[2]!.ifNoneMatch).toBe(seen[1]!.ifNoneMatch);
    expect(seen[3]!.ifNoneMatch).not.toBe(seen[2]!.ifNoneMatch);

    // Nothing is kept beyond the client, nor for another URL.
    await new ApiClient(base, async () => user.token).match(url);
    await api.match("https://other.kept.test/login");
    expect(seen.slice(4)).toEqual([
      { ifNoneMatch: null, status: 200 },
      { ifNoneMatch: null, status: 200 },
    ]);

    // An answer the caller cannot trust is forgotten: the next lookup asks unconditionally.
    api.forgetMatch(url);
    expect(await api.match(url)).toEqual(two);
    expect(seen.at(-1)).toEqual({ ifNoneMatch: null, status: 200 });
  });

  it("keeps the bytes of an answer with an ETag, replays them on each 304, and passes other answers through", async () => {
    const r = new Revalidation(2);
    const bytes = new Uint8Array([0, 255, 128, 10]);
    const kept = await r.keep(
      "/a",
      new Response(bytes, {
        headers: { etag: 'W/"1"', "content-type": "application/octet-stream" },
      }),
    );
    expect(new Uint8Array(await kept.arrayBuffer())).toEqual(bytes);
    expect(r.condition("/a")).toBe('W/"1"');
    for (let i = 0; i < 2; i++) {
      const again = r.replay(
        "/a",
        new Response(null, { status: 304, headers: { etag: 'W/"1"', "x-vault-bookmark": "b" } }),
      )!;
      expect(again.status).toBe(200);
      expect(again.headers.get("content-type")).toBe("application/octet-stream");
      expect(again.headers.get("x-vault-bookmark")).toBe("b");
      expect(new Uint8Array(await again.arrayBuffer())).toEqual(bytes);
    }
    expect(r.replay("/never", new Response(null, { status: 304 }))).toBeNull();

    const plain = new Response("stream");
    expect(await r.keep("/b", plain)).toBe(plain);
    expect(r.condition("/b")).toBeUndefined();
  });

  it("keeps at most its bound, dropping the least recently used", async () => {
    const r = new Revalidation(2);
    const keep = (url: string) =>
      r.keep(url, new Response("{}", { headers: { etag: `"${url}"` } }));
    await keep("/a");
    await keep("/b");
    r.replay("/a", new Response(null, { status: 304 }));
    await keep("/c");
    expect([r.condition("/a"), r.condition("/b"), r.condition("/c")]).toEqual([
      '"/a"',
      undefined,
      '"/c"',
    ]);
  });
});
