import { describe, expect, it } from "vitest";
import { openSessions } from "../../src/db/sessions";
import { formatBookmarks, mergeBookmarks, parseBookmarks } from "../../src/kernel/bookmarks";
import { TestUser } from "../support/auth";
import { createEntry, entryBody } from "../support/fixtures";

const HEADER = "x-vault-bookmark";
const shardOf = (header: string | null) =>
  [...parseBookmarks(header).keys()].filter((n) => /^DB_\d+$/.test(n));

describe("D1 sessions: the bookmark header", () => {
  it("keeps well-formed parts only, and merges by keeping each database's later bookmark", () => {
    const a = "0000000b-00000006-00004f6e-7e1c3b0e23a0c0b6f3ad1b1d7d2fa0f4";
    const b = "0000000c-00000001-00004f6e-0d9a1cf2c1b84fa2e5c6d1e9b0a3c7d2";
    const parsed = parseBookmarks(
      `DB_0=${a}; DIRECTORY=${b};bad name=${a};DB_1=not-a-bookmark;=;DB_2`,
    );
    expect(formatBookmarks(parsed)).toBe(`DB_0=${a};DIRECTORY=${b}`);
    expect(parseBookmarks(null).size).toBe(0);
    expect(parseBookmarks("x".repeat(9000)).size).toBe(0);
    const merged = mergeBookmarks(
      new Map([
        ["DB_0", b],
        ["DIRECTORY", a],
      ]),
      new Map([
        ["DB_0", a],
        ["DIRECTORY", b],
        ["DB_1", a],
      ]),
    );
    expect(formatBookmarks(merged)).toBe(`DB_0=${b};DIRECTORY=${b};DB_1=${a}`);
  });

  it("a write answers with the bookmark of the user's shard; a later read from it sees the write", async () => {
    const user = await TestUser.create();
    const created = await user.call("POST", "/api/passwords", {
      body: entryBody({ website: "booked.example.com" }),
    });
    expect(created.status).toBe(201);
    const written = created.headers.get(HEADER);
    expect(shardOf(written)).toHaveLength(1);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    const pulled = await user.call("GET", "/api/passwords/sync", {
      headers: { [HEADER]: written! },
    });
    expect(pulled.status).toBe(200);
    expect(
      ((await pulled.json()) as { changes: { id: string }[] }).changes.map((c) => c.id),
    ).toContain(id);
    const shard = shardOf(written)[0]!;
    expect(
      parseBookmarks(pulled.headers.get(HEADER)).get(shard)! >= parseBookmarks(written).get(shard)!,
    ).toBe(true);
  });

  it("ignores a malformed bookmark: the device syncs as one without a bookmark", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const pulled = await user.call("GET", "/api/passwords/sync", {
      headers: { [HEADER]: "DB_0=garbage;DIRECTORY" },
    });
    expect(pulled.status).toBe(200);
    expect(
      ((await pulled.json()) as { changes: { id: string }[] }).changes.map((c) => c.id),
    ).toContain(id);
  });

  it("a bookmark ahead of the database (say, from before a restore) still gets the device its data", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const ahead = "ffffffff-ffffffff-ffffffff-ffffffffffffffffffffffffffffffff";
    const pulled = await user.call("GET", "/api/passwords/sync", {
      headers: { [HEADER]: `DB_0=${ahead};DIRECTORY=${ahead}` },
    });
    expect(pulled.status).toBe(200);
    expect(
      ((await pulled.json()) as { changes: { id: string }[] }).changes.map((c) => c.id),
    ).toContain(id);
  });
});

describe("D1 sessions: where each request starts", () => {
  /** A binding that records the constraint each session was opened with and the SQL it ran. */
  function fakeD1(log: string[], name: string) {
    const statement = (sql: string) => ({
      sql,
      bind: () => statement(sql),
      first: async () => (log.push(`${name} ${sql}`), null),
    });
    return {
      prepare: (sql: string) => statement(sql),
      batch: async () => [],
      exec: async () => (log.push(`${name} exec`), { count: 0, duration: 0 }),
      withSession(constraint: string) {
        log.push(`${name} session ${constraint}`);
        return {
          prepare: (sql: string) => statement(`${sql} (in session)`),
          batch: async () => [],
          getBookmark: () => `${name}-bookmark`,
        };
      },
    };
  }

  it("reads start on any replica, writes and the directory on the primary, a given bookmark wins; one session per binding", async () => {
    const run = async (primary: boolean, given: Map<string, string>) => {
      const log: string[] = [];
      const env = {
        DB_0: fakeD1(log, "DB_0"),
        DIRECTORY: fakeD1(log, "DIRECTORY"),
        OTHER: "a var",
      };
      const s = openSessions(env, given, primary);
      const e = s.env as typeof env;
      expect(e.OTHER).toBe("a var");
      await e.DB_0.prepare("SELECT 1").first();
      await e.DB_0.prepare("SELECT 2").first();
      await e.DIRECTORY.prepare("SELECT 3").first();
      await (e.DB_0 as unknown as D1Database).exec("PRAGMA x");
      return { log, bookmarks: formatBookmarks(s.bookmarks()) };
    };
    expect(await run(false, new Map())).toEqual({
      log: [
        "DB_0 session first-unconstrained",
        "DB_0 SELECT 1 (in session)",
        "DB_0 SELECT 2 (in session)",
        "DIRECTORY session first-primary",
        "DIRECTORY SELECT 3 (in session)",
        "DB_0 exec",
      ],
      bookmarks: "DB_0=DB_0-bookmark;DIRECTORY=DIRECTORY-bookmark",
    });
    expect((await run(true, new Map())).log.filter((l) => /^\w+ session /.test(l))).toEqual([
      "DB_0 session first-primary",
      "DIRECTORY session first-primary",
    ]);
    expect((await run(false, new Map([["DB_0", "given"]]))).log[0]).toBe("DB_0 session given");
  });
});
