import { describe, expect, it } from "vitest";
import { bindingOf, directoryBinding, pickShard, shardBindings } from "../../src/db/shards";

const ids = (n: number) =>
  Array.from({ length: n }, (_, i) => (i % 2 ? crypto.randomUUID() : `user-${i}`));
const names = (n: number) => Array.from({ length: n }, (_, i) => `DB_${i}`);
const fakeD1 = () => ({ prepare() {} });

describe("rendezvous routing", () => {
  it("is deterministic and does not depend on the order of the shard list", () => {
    for (const id of ids(200)) {
      const a = pickShard(id, names(5));
      expect(pickShard(id, names(5))).toBe(a);
      expect(pickShard(id, [...names(5)].reverse())).toBe(a);
      expect(names(5)).toContain(a);
    }
  });

  it("spreads users evenly", () => {
    const users = ids(30_000);
    for (const n of [3, 8]) {
      const counts = new Map<string, number>();
      for (const id of users)
        counts.set(pickShard(id, names(n)), (counts.get(pickShard(id, names(n))) ?? 0) + 1);
      const values = [...counts.values()];
      expect(values.length).toBe(n);
      // 30,000 / n users per shard; a binomial spread stays well inside 10% of it.
      expect(Math.max(...values) / Math.min(...values)).toBeLessThan(1.1);
    }
  });

  it("adding a shard moves only the users the new shard takes, about 1/(n+1) of them", () => {
    const users = ids(20_000);
    let moved = 0;
    for (const id of users) {
      const before = pickShard(id, names(3));
      const after = pickShard(id, names(4));
      if (after !== before) {
        expect(after).toBe("DB_3");
        moved++;
      }
    }
    expect(moved / users.length).toBeGreaterThan(0.22);
    expect(moved / users.length).toBeLessThan(0.28);
  });

  it("removing a shard moves only that shard's users", () => {
    for (const id of ids(5_000)) {
      const before = pickShard(id, names(4));
      const after = pickShard(id, ["DB_0", "DB_2", "DB_3"]);
      if (before !== "DB_1") expect(after).toBe(before);
    }
  });

  it("fails closed without a shard", () => {
    expect(() => pickShard("u", [])).toThrow();
  });
});

describe("shard bindings", () => {
  it("lists DB_0 … DB_{n-1} in numeric order and ignores other bindings", () => {
    const env = {
      DB_10: fakeD1(),
      DB_2: fakeD1(),
      DB_0: fakeD1(),
      DB_1: fakeD1(),
      DB_01: fakeD1(),
      DB_X: fakeD1(),
      ...Object.fromEntries(
        names(10)
          .slice(3)
          .map((n) => [n, fakeD1()]),
      ),
      DB_11: "not a database",
    };
    expect(shardBindings(env)).toEqual(names(11));
  });

  it("refuses a gap and a deployment without any database", () => {
    expect(() => shardBindings({ DB_0: fakeD1(), DB_2: fakeD1() })).toThrow(/DB_1 is missing/);
    expect(() => shardBindings({ DB_1: fakeD1() })).toThrow(/DB_0 is missing/);
    expect(() => shardBindings({ DIRECTORY: fakeD1() })).toThrow(/No D1 shard/);
  });

  it("takes the single DB binding of DECISIONS D12 as the one shard, DB_0, and the directory", () => {
    const db = fakeD1();
    expect(shardBindings({ DB: db })).toEqual(["DB_0"]);
    expect(directoryBinding({ DB: db })).toBe("DB_0");
    expect(bindingOf({ DB: db }, "DB_0")).toBe(db);
    expect(bindingOf({ DB: db }, "DIRECTORY")).toBe(db);
    expect(() => bindingOf({ DB: db }, "DB_1")).toThrow();
    expect(directoryBinding({ DB_0: fakeD1(), DIRECTORY: fakeD1() })).toBe("DIRECTORY");
    expect(directoryBinding({ DB_0: fakeD1(), DB_1: fakeD1() })).toBe("DB_0");
  });
});
