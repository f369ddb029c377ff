import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { LocalEntry } from "../../core/store/db";
import { FillHealth } from "../../extension/src/fill-health";

// The extension's fill warnings: reuse counted over the synced copy by revision, exposure by the
// range of a five-character prefix (padding rows never match), a failed lookup never read as clean.
const sha1 = (s: string) => createHash("sha1").update(s, "utf8").digest("hex").toUpperCase();
const entry = (id: string, password: string, rev = "1"): LocalEntry & { password: string } => ({
  userId: "u",
  id,
  name: id,
  website: null,
  url: null,
  tags: [],
  encryption_version: 3,
  wrapped_item_key: "k",
  encrypted_data: `sealed-${id}-${rev}`,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: `2026-01-0${rev}T00:00:00Z`,
  search_tokens: null,
  password,
});
const opener = (opened: string[]) => async (e: LocalEntry) => {
  opened.push(e.id);
  return (e as LocalEntry & { password: string }).password;
};
const URL_ = "https://vault.example/health";

function standIn(breached: Record<string, number>) {
  const asked: string[] = [];
  const range = async (prefix: string) => {
    asked.push(prefix);
    const rows = Object.entries(breached)
      .map(([p, n]) => [sha1(p), n] as const)
      .filter(([h]) => h.startsWith(prefix))
      .map(([h, n]) => `${h.slice(5)}:${n}`);
    // A padding row for a hash of the prefix: count 0, never a match.
    return [...rows, `${sha1("clean-one").slice(5)}:0`].join("\r\n");
  };
  return { asked, range };
}

describe("fill warnings (extension)", () => {
  it("counts reuse over the copy, opens only new or changed entries, and asks ranges by prefix only", async () => {
    const { asked, range } = standIn({ "leaked-pass": 321 });
    const health = new FillHealth(range);
    const opened: string[] = [];
    const copy = [
      entry("a", "shared-pass"),
      entry("b", "shared-pass"),
      entry("c", "leaked-pass"),
      entry("d", "clean-one"),
    ];
    await health.refresh(copy, opener(opened));
    expect(health.ready).toBe(true);
    expect(opened.sort()).toEqual(["a", "b", "c", "d"]);

    expect(await health.warning("a", "shared-pass", URL_)).toEqual({
      reused: 1,
      exposed: 0,
      healthUrl: URL_,
    });
    expect(await health.warning("c", "leaked-pass", URL_)).toEqual({
      reused: 0,
      exposed: 321,
      healthUrl: URL_,
    });
    // Listed in the range only as padding (count 0): not exposed.
    expect(await health.warning("d", "clean-one", URL_)).toBeNull();
    for (const p of asked) expect(p).toMatch(/^[0-9A-F]{5}$/);
    expect(new Set(asked)).toEqual(
      new Set(["shared-pass", "leaked-pass", "clean-one"].map((p) => sha1(p).slice(0, 5))),
    );

    // The next sync: b changed its password, d was deleted; only b is opened again.
    opened.length = 0;
    await health.refresh([copy[0]!, entry("b", "another-pass", "2"), copy[2]!], opener(opened));
    expect(opened).toEqual(["b"]);
    expect(await health.warning("a", "shared-pass", URL_)).toBeNull();
    // Each prefix was asked once.
    expect(asked.length).toBe(new Set(asked).size);
  });

  it("never reads a failed lookup as clean, and asks again next time", async () => {
    let fail = true;
    const asked: string[] = [];
    const health = new FillHealth(async (prefix) => {
      asked.push(prefix);
      if (fail) throw new Error("503");
      return `${sha1("leaked-pass").slice(5)}:7`;
    });
    await health.refresh([entry("c", "leaked-pass")], opener([]));
    expect(await health.warning("c", "leaked-pass", URL_)).toBeNull();
    fail = false;
    expect(await health.warning("c", "leaked-pass", URL_)).toMatchObject({ exposed: 7 });
    expect(asked).toHaveLength(2);
  });

  it("keeps nothing after clear (the vault locked)", async () => {
    const health = new FillHealth(async () => "");
    await health.refresh([entry("a", "shared-pass"), entry("b", "shared-pass")], opener([]));
    health.clear();
    expect(health.ready).toBe(false);
    expect(await health.warning("a", "shared-pass", URL_)).toBeNull();
  });
});
