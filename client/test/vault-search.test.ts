import { describe, expect, it } from "vitest";
import { plainTokens } from "../src/crypto";
import type { LocalEntry } from "../src/db";
import { nextTask, sortInSlices } from "../src/next-task";
import { queryWords, SearchIndex } from "../src/sections/vault-search";

// The vault page's in-memory search must find exactly what the blind index finds (whole words and
// word beginnings of the name, site host and username), and its sort in slices exactly what one
// sort finds.
const entry = (id: string, name: string, website: string | null): LocalEntry => ({
  userId: "u",
  id,
  name,
  website,
  url: null,
  tags: [],
  encryption_version: 3,
  wrapped_item_key: null,
  encrypted_data: null,
  created_at: "",
  updated_at: "",
  search_tokens: null,
});

describe("in-memory search", () => {
  const e = entry("1", "Chase Bank – Checking", "https://www.Chase.com/login");
  const index = new SearchIndex();
  const finds = (q: string, username?: string) => index.matches(e, username, queryWords(q));
  /** The blind index's answer for the same query: every query word among the plain tokens. */
  const blind = (q: string, username = "") => {
    const tokens = new Set(plainTokens(`${e.name} chase.com ${username}`));
    return queryWords(q).every((w) => tokens.has(w));
  };

  it("matches whole words and word beginnings of name, site and (once known) username, as the blind index does", () => {
    for (const [q, username] of [
      ["chase", undefined],
      ["CHECK", undefined],
      ["bank chase", undefined],
      ["ase", undefined],
      ["chase.com", undefined],
      ["login", undefined],
      ["carol", "carol.smith@example.test"],
      ["smith", "carol.smith@example.test"],
      ["carol", undefined],
      ["x", undefined],
      ["checking savings", undefined],
    ] as const) {
      expect([q, finds(q, username)]).toEqual([q, blind(q, username ?? "")]);
    }
    expect(finds("carol", "carol@example.test")).toBe(true);
    // A username learnt later replaces the words cut before.
    expect(finds("carol")).toBe(false);
  });
});

describe("sort in slices", () => {
  it("gives what one stable sort gives, ties in their first order, across many slices", async () => {
    const items = Array.from({ length: 4321 }, (_, i) => ({ key: (i * 7919) % 97, i }));
    const compare = (a: { key: number }, b: { key: number }) => a.key - b.key;
    expect(await sortInSlices(items, compare)).toEqual([...items].sort(compare));
    expect(await sortInSlices([], compare)).toEqual([]);
  });

  it("lets other tasks run between slices", async () => {
    let ran = false;
    setTimeout(() => (ran = true), 0);
    await nextTask();
    await sortInSlices(Array.from({ length: 5000 }, (_, i) => 5000 - i), (a, b) => a - b);
    expect(ran).toBe(true);
  });
});
