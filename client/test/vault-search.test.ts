import { describe, expect, it, vi } from "vitest";
import { plainTokens } from "../../core/crypto/crypto";
import type { LocalEntry } from "../../core/store/db";
import { nextTask, sortInSlices } from "../../core/vault/next-task";
import { inListOrder } from "../../core/store/entry-order";
import { inOrderOf, withArrivals } from "../src/sections/vault/arrivals";
import { ListAnswers } from "../src/sections/vault/filter";
import {
  narrows,
  needles,
  queryWords,
  SearchIndex,
  shortNeedles,
} from "../src/sections/vault/search";
import { byEntryName } from "../../core/vault/vault";

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
  const finds = (q: string, username?: string) =>
    index.matches(e, username, needles(queryWords(q)));
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
      ["checking savings", undefined],
    ] as const) {
      expect([q, finds(q, username)]).toEqual([q, blind(q, username ?? "")]);
    }
    expect(finds("carol", "carol@example.test")).toBe(true);
    // A username learnt later replaces the words cut before.
    expect(finds("carol")).toBe(false);
  });

  it("finds a word by its first letter, which the blind index holds no token for", () => {
    for (const [q, found] of [
      ["c", true],
      ["C", true],
      ["b", true],
      ["l", false],
      ["h", false],
      ["x", false],
      ["a", false],
      ["b c", true],
      ["b x", false],
      ["ch b", true],
    ] as const)
      expect([q, finds(q)]).toEqual([q, found]);
    expect(finds("s", "carol.smith@example.test")).toBe(true);
    expect(blind("c")).toBe(false);
    expect(shortNeedles(queryWords("c chase b"))).toEqual(needles(["c", "b"]));
  });
});

describe("a keystroke's answer at thousands of entries", () => {
  const entries = Array.from({ length: 3000 }, (_, i) =>
    entry(
      String(i).padStart(5, "0"),
      `Service ${i % 250} ${["alpha", "beta", "gamma"][i % 3]}`,
      `https://service${i % 500}.example.test`,
    ),
  );
  const index = new SearchIndex();
  const answers = new ListAnswers({
    entries: () => entries,
    keyOf: (e) => index.keyOf(e, undefined),
    plainKeyOf: (e) => index.keyOf(e, undefined),
    rowOf: (e) => ({ id: e.id, name: e.name, site: e.website ?? "" }),
  });
  const scan = (q: string) =>
    entries.filter((e) => index.matches(e, undefined, needles(queryWords(q)))).map((e) => e.id);
  const ask = (q: string, tag = "", version = "v1") => {
    const words = queryWords(q);
    return answers
      .answer(answers.tableFor(version), {
        words,
        needles: needles(words),
        hashed: [],
        short: shortNeedles(words),
        tag,
        organised: null,
        scope: "",
      })
      .map((r) => r.id);
  };

  it("narrows only when each earlier word begins one of the new ones", () => {
    expect(narrows(["se"], ["ser"])).toBe(true);
    expect(narrows(["se", "al"], ["alpha", "service"])).toBe(true);
    expect(narrows(["ser"], ["se"])).toBe(false);
    expect(narrows(["alpha"], ["beta"])).toBe(false);
    expect(narrows([], ["beta"])).toBe(true);
  });

  it("gives, keystroke by keystroke and narrowed or not, what a scan of every entry gives, in the list's order", () => {
    for (const typed of ["service12 alpha", "gamma service4", "beta", "s a b"]) {
      for (let i = 0; i <= typed.length; i++)
        expect(ask(typed.slice(0, i))).toEqual(scan(typed.slice(0, i)));
      // Taken back: a shorter query is answered from the whole table again.
      for (let i = typed.length; i >= 0; i--)
        expect(ask(typed.slice(0, i))).toEqual(scan(typed.slice(0, i)));
    }
    // A changed table (a new version) is never narrowed from the old answer.
    expect(ask("service1")).toEqual(scan("service1"));
    entries.push(entry("99999", "Service 1 new", "https://service12.example.test"));
    expect(ask("service12", "", "v2")).toEqual(scan("service12"));
    expect(ask("service12", "", "v2")).toContain("99999");
  });

  it("takes a learnt username into the table in place: the next answer finds it, though it narrows an answer made before", () => {
    const users = new Map<string, string>();
    const few = entries.slice(0, 50);
    // As on the page: an entry not opened yet (no username known, tokens stored) is matched on its tokens.
    const withTokens = few.map((e) => ({ ...e, search_tokens: ["t"] }));
    const rows = new Map<string, { id: string; name: string; site: string }>();
    const made: string[] = [];
    const table = new ListAnswers({
      entries: () => withTokens,
      keyOf: (e) => (made.push(e.id), users.has(e.id) ? index.keyOf(e, users.get(e.id)) : null),
      plainKeyOf: (e) => index.keyOf(e, users.get(e.id)),
      rowOf: (e) =>
        rows.get(e.id) ??
        rows.set(e.id, { id: e.id, name: e.name, site: e.website ?? "" }).get(e.id)!,
    });
    for (const e of withTokens.slice(1)) users.set(e.id, "someone");
    const q = (text: string, hashed: string[] = []) => {
      const words = queryWords(text);
      return table
        .answer(table.tableFor("v"), {
          words,
          needles: needles(words),
          hashed,
          short: shortNeedles(words),
          tag: "",
          organised: null,
          scope: "",
        })
        .map((r) => r.id);
    };
    expect(table.tableFor("v").tokens).toBe(true);
    // One letter: no token to compare, so the entry on its tokens matches on its name and site.
    expect(q("s")).toEqual(few.map((e) => e.id));
    expect(q("q")).toEqual([]);
    expect(q("s ser", ["miss"])).toEqual(few.slice(1).map((e) => e.id));
    // "car" narrows from "ca"; the first entry (on its tokens, which the query's hash misses) is left out.
    expect(q("ca", ["miss"])).toEqual([]);
    made.length = 0;
    users.set(withTokens[0]!.id, "carol");
    table.rekey(withTokens[0]!.id);
    // One key made, not the table's fifty; no entry is matched on tokens any more.
    expect(made).toEqual([withTokens[0]!.id]);
    expect(table.tableFor("v").tokens).toBe(false);
    expect(q("car")).toEqual([withTokens[0]!.id]);
    expect(q("someone").length).toBe(49);
  });
});

describe("a pull's pages merged into the sorted list", () => {
  it("gives what a sort of the store's copy gives: replaced, removed and new entries each in their place", () => {
    const names = ["delta", "Alpha", "charlie", "alpha", "Bravo", "echo", "Échelle", "foxtrot"];
    const before = names.map((n, i) => entry(`id-${i}`, n, "")).sort(byEntryName);
    const page = [
      entry("id-1", "zulu", ""),
      { id: "id-4", tombstone: true as const },
      entry("new-1", "alpha", ""),
      entry("new-2", "Bravissimo", ""),
      entry("new-3", "", ""),
    ];
    const store = new Map(before.map((e) => [e.id, e]));
    for (const c of page) {
      if ("tombstone" in c) store.delete(c.id);
      else store.set(c.id, c);
    }
    const merged = withArrivals(before, page);
    expect(merged.map((e) => e.id)).toEqual([...store.values()].sort(byEntryName).map((e) => e.id));
    // Applying the same page again changes nothing (a paint's read may already hold it).
    expect(withArrivals(merged, page).map((e) => e.id)).toEqual(merged.map((e) => e.id));
  });
});

describe("a first sync's pages in the list's order", () => {
  // Names that put the collator's rules to work: case, accents, digits, punctuation, empty, equal names.
  const NAMES = [
    "delta",
    "Alpha",
    "charlie",
    "alpha",
    "Bravo",
    "echo",
    "Échelle",
    "foxtrot",
    "10 Downing",
    "2fa",
    "_x",
    "",
    "Zoë",
    "zoe",
    "ZOE",
    "bank",
    "Bank",
  ];
  const many = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) =>
      entry(
        `id-${seed}-${i}`,
        `${NAMES[(i * 7 + seed) % NAMES.length]} ${(i * 31 + seed) % 53}`,
        "",
      ),
    );

  it("pages sorted by the worker and merged one after another give what one sort of all gives", () => {
    let list: LocalEntry[] = [];
    const all: LocalEntry[] = [];
    for (let p = 0; p < 12; p++) {
      const page = many(150 + p * 40, p);
      all.push(...page);
      list = withArrivals(
        list,
        inListOrder([...page, { id: `id-${p - 1}-3`, tombstone: true as const }]),
      );
      const tomb = all.findIndex((e) => e.id === `id-${p - 1}-3`);
      if (tomb >= 0) all.splice(tomb, 1);
    }
    expect(list.map((e) => e.id)).toEqual([...all].sort(byEntryName).map((e) => e.id));
  });

  it("a page in the list's order puts its removals first and its entries by name", () => {
    const page = [
      entry("b", "beta", ""),
      { id: "x", tombstone: true as const },
      entry("a", "Alpha", ""),
    ];
    expect(inListOrder(page).map((c) => c.id)).toEqual(["x", "a", "b"]);
  });

  it("the store read after the pull, ordered from the arrivals, is what a sort of it gives", async () => {
    const arrived = withArrivals([], many(900, 1));
    // The store as read: the same entries as new objects, one renamed, one gone, two new.
    const read = arrived.filter((e) => e.id !== arrived[5]!.id).map((e) => ({ ...e }));
    read[10] = { ...read[10]!, name: "aaa renamed" };
    read.push(entry("n1", "Mid name", ""), entry("n2", "", ""));
    const ordered = await inOrderOf(read, arrived);
    expect(ordered.map((e) => e.id)).toEqual([...read].sort(byEntryName).map((e) => e.id));
    // The store's copies are the ones listed, not the arrivals'.
    expect(ordered.every((e) => read.includes(e))).toBe(true);
    expect((await inOrderOf(read, [])).map((e) => e.id)).toEqual(ordered.map((e) => e.id));
  });

  it("orders a read of thousands of entries in slices, other tasks running between them", async () => {
    const arrived = withArrivals([], many(3000, 2));
    const read = arrived.map((e) => ({ ...e })).reverse();
    // A clock that says each slice has run its share: every look at it yields.
    let now = 0;
    const clock = vi.spyOn(performance, "now").mockImplementation(() => (now += 10));
    try {
      let done = false;
      const ordering = inOrderOf(read, arrived).then((r) => ((done = true), r));
      for (let i = 0; i < 5; i++) await Promise.resolve();
      // Not done within the task that started it: the two passes over 3,000 entries yielded.
      expect(done).toBe(false);
      expect((await ordering).map((e) => e.id)).toEqual(
        [...read].sort(byEntryName).map((e) => e.id),
      );
    } finally {
      clock.mockRestore();
    }
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
    await sortInSlices(
      Array.from({ length: 5000 }, (_, i) => 5000 - i),
      (a, b) => a - b,
    );
    expect(ran).toBe(true);
  });
});
