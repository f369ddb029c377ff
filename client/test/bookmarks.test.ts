import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../../core/api/api";

const A1 = "00000001-00000002-00000003-0123456789abcdef0123456789abcdef";
const A2 = "00000001-00000002-00000004-0123456789abcdef0123456789abcdef";
const D1 = "00000009-00000002-00000003-0123456789abcdef0123456789abcdef";

/** A server that answers each call with the bookmark header it is given, and records what came. */
function server(answers: (string | null)[]) {
  const sent: (string | null)[] = [];
  vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
    sent.push((init.headers as Record<string, string>)["x-vault-bookmark"] ?? null);
    const bookmark = answers.shift();
    return new Response(
      JSON.stringify({
        changes: [],
        serverTimestamp: "2026-11-24T00:00:00.000Z",
        fullSyncRequired: false,
      }),
      {
        headers: {
          "content-type": "application/json",
          ...(bookmark ? { "x-vault-bookmark": bookmark } : {}),
        },
      },
    );
  });
  return sent;
}

afterEach(() => vi.unstubAllGlobals());

describe("the web client's D1 bookmarks", () => {
  it("sends back the latest bookmark of each database it was answered with", async () => {
    const sent = server([`DB_0=${A1}`, `DIRECTORY=${D1}`, `DB_0=${A1}`, null]);
    const api = new ApiClient("http://vault.test");
    await api.syncPull(undefined);
    await api.syncPull(undefined);
    // A newer bookmark from elsewhere (the stored cursor); the next answer then carries an older one
    // (a lagging replica), which must not replace it.
    api.useBookmarks(`DB_0=${A2}`);
    await api.syncPull(undefined);
    await api.syncPull(undefined);
    expect(sent).toEqual([
      null,
      `DB_0=${A1}`,
      `DB_0=${A2};DIRECTORY=${D1}`,
      `DB_0=${A2};DIRECTORY=${D1}`,
    ]);
    expect(api.bookmarkHeader()).toBe(`DB_0=${A2};DIRECTORY=${D1}`);
  });

  it("starts from stored bookmarks but keeps later ones it already holds; ignores malformed ones", async () => {
    server([`DB_0=${A2}`]);
    const api = new ApiClient("http://vault.test");
    await api.syncPull(undefined);
    api.useBookmarks(`DB_0=${A1};DIRECTORY=${D1};DB_1=junk`);
    expect(api.bookmarkHeader()).toBe(`DB_0=${A2};DIRECTORY=${D1}`);
  });
});
