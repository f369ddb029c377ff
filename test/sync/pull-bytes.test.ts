import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { entryIdClaims } from "../../src/db/entry-ids";
import { passwords } from "../../src/db/schema/passwords";
import { parseResume } from "../../src/domains/sync/resume";
import { toChange } from "../../src/domains/sync/changes";
import { SyncService } from "../../src/domains/sync/service";
import { TestUser } from "../support/auth";

/**
 * SQLite builds each change's JSON (`json_object`) and the Worker only joins the texts, so nothing
 * in the Worker re-serialises a row. These tests hold that text to the one the Worker would write
 * itself from the stored row (`JSON.stringify` of `toChange`), byte for byte, over every shape a
 * field takes: text that JSON escapes, text it does not, nulls, the flags, negative versions, tags
 * as the app stores them, tombstones.
 */
const awkward = [
  'quote " backslash \\ slash /',
  "controls \b\f\n\r\t \u0000\u0001\u001f \u007f",
  "non-ASCII é ß 漢字 emoji 🔑 separators \u2028\u2029",
  "",
];

async function seed(userId: string, base: number) {
  const rows: unknown[][] = [];
  let seq = base;
  const add = (id: string, over: Record<string, unknown>) => {
    const r = {
      name: "n",
      website: null,
      url: null,
      username: null,
      tags: "[]",
      v: 3,
      key: "k",
      data: "d",
      totp: 0,
      passkey: 0,
      deleted: null,
      ...over,
    };
    const at = new Date(++seq).toISOString();
    rows.push([
      `${userId}-${id}`,
      userId,
      r.name,
      r.website,
      r.url,
      r.username,
      r.tags,
      r.v,
      r.key,
      r.data,
      r.totp,
      r.passkey,
      at,
      at,
      r.deleted,
      seq,
    ]);
  };
  awkward.forEach((s, i) => {
    add(`text-${i}`, {
      name: s,
      website: s,
      url: s,
      tags: JSON.stringify([s, "plain"]),
      data: s,
      key: s,
    });
    add(`placeholder-${i}`, { v: -1, username: s, key: null, data: null, name: s });
  });
  add("flags-on", { totp: 1, passkey: 1, tags: JSON.stringify(["a", "b", "c"]) });
  add("legacy", { v: 1, username: "hidden unless a placeholder", key: null });
  add("nulls", { website: null, url: null, key: null, data: null });
  add("tombstone", { deleted: new Date(base).toISOString(), name: "gone" });
  add("long", {
    data: "A".repeat(50_000),
    tags: JSON.stringify(Array.from({ length: 40 }, (_, i) => `tag ${i}`)),
  });
  const stmt = env.DB.prepare(
    `INSERT INTO passwords (id, user_id, name, website, url, username, tags, encryption_version, wrapped_item_key, encrypted_data, has_totp, has_passkey, created_at, updated_at, deleted_at, change_seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  await env.DB.batch([
    ...rows.map((r) => stmt.bind(...r)),
    env.DB.prepare("INSERT INTO sync_clocks (user_id, clock) VALUES (?, ?)").bind(userId, seq),
  ]);
  return seq;
}

const text = async (body: string | ReadableStream<Uint8Array>) =>
  typeof body === "string" ? body : new Response(body).text();

describe("sync pull text, built by SQLite, byte for byte what the Worker would write", () => {
  // Pages of one to three rows as well as the default, so page edges and the separators between
  // pages are part of what is compared.
  for (const [label, sizes] of [
    ["the default pages", undefined],
    ["pages of a few rows", { first: 2, bytes: 1, minRows: 1, maxRows: 3 }],
  ] as const) {
    it(`the spec's object, full and delta, in ${label}`, async () => {
      const user = await TestUser.create();
      const base = Date.now() - 60_000;
      await seed(user.id, base);
      const db = dbFor(env, user.id);
      const service = new SyncService(
        db,
        { entries: 100, bytes: 10_000_000 },
        entryIdClaims(env),
        env,
        sizes,
      );
      const rows = await db
        .select()
        .from(passwords)
        .where(eq(passwords.userId, user.id))
        .orderBy(passwords.changeSeq, passwords.id)
        .all();
      expect(rows.length).toBe(2 * awkward.length + 5);

      const full = await text(await service.pull(user.id, undefined));
      const fullTs = (JSON.parse(full) as { serverTimestamp: string }).serverTimestamp;
      const live = rows.filter((r) => r.deletedAt === null).map(toChange);
      expect(full).toBe(
        JSON.stringify({ changes: live, serverTimestamp: fullTs, fullSyncRequired: true }),
      );

      const delta = await text(await service.pull(user.id, new Date(base - 1_000).toISOString()));
      const deltaTs = (JSON.parse(delta) as { serverTimestamp: string }).serverTimestamp;
      expect(delta).toBe(
        JSON.stringify({
          changes: rows.map(toChange),
          serverTimestamp: deltaTs,
          fullSyncRequired: false,
        }),
      );
    });

    it(`the page-framed lines, in ${label}: each page's line is its changes and token as JSON.stringify writes them`, async () => {
      const user = await TestUser.create();
      await seed(user.id, Date.now() - 60_000);
      const db = dbFor(env, user.id);
      const service = new SyncService(
        db,
        { entries: 100, bytes: 10_000_000 },
        entryIdClaims(env),
        env,
        sizes,
      );
      const rows = await db
        .select()
        .from(passwords)
        .where(eq(passwords.userId, user.id))
        .orderBy(passwords.changeSeq, passwords.id)
        .all();
      const byId = new Map(rows.map((r) => [r.id, toChange(r)]));
      const lines = (
        await text(await service.pull(user.id, undefined, { format: "ndjson" }))
      ).split("\n");
      expect(lines.pop()).toBe("");
      expect(lines.pop()).toBe('{"complete":true}');
      const facts = JSON.parse(lines.shift()!) as {
        serverTimestamp: string;
        fullSyncRequired: boolean;
        resumed: boolean;
      };
      expect(facts).toMatchObject({ fullSyncRequired: true, resumed: false });
      expect(lines.length).toBeGreaterThan(sizes ? 3 : 0);
      const seen: string[] = [];
      for (const line of lines) {
        const page = JSON.parse(line) as { changes: { id: string }[]; resume: string };
        expect(parseResume(page.resume)?.after.id).toBe(page.changes.at(-1)!.id);
        expect(line).toBe(
          JSON.stringify({ changes: page.changes.map((c) => byId.get(c.id)), resume: page.resume }),
        );
        seen.push(...page.changes.map((c) => c.id));
      }
      expect(seen).toEqual(rows.filter((r) => r.deletedAt === null).map((r) => r.id));
    });
  }
});
