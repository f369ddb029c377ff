import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { entryIdClaims } from "../../src/db/entry-ids";
import { passwords } from "../../src/db/schema/passwords";
import { PAGE_SIZES } from "../../src/domains/sync/repo";
import { toChange } from "../../src/domains/sync/changes";
import { SyncService } from "../../src/domains/sync/service";
import { eq } from "drizzle-orm";
import { TestUser } from "../support/auth";
import { pull, type PullBody } from "./helpers";

/** Rows TIE..TIE+99 share one commit stamp; a full pull skips every seventh row, so they straddle the first page edge. */
const FIRST_PAGE = PAGE_SIZES.first;
const TIE = FIRST_PAGE;
/** Ciphertext of this suite's seed: rows of about 1,800 bytes, so a few hundred fill a later page. */
const DATA = "d".repeat(1_500);
/** Rows of this suite's seed that fill the first later page at the default sizes (later ones grow). */
const PULL_PAGE = Math.floor(PAGE_SIZES.bytes / 1_800);

/** Seeds `n` rows straight into D1, with the tie above. */
async function seed(userId: string, n: number, base = Date.now() - 3_600_000) {
  const stmt = env.DB.prepare(
    `INSERT INTO passwords (id, user_id, name, website, tags, encryption_version, wrapped_item_key, encrypted_data, created_at, updated_at, change_seq, deleted_at)
     VALUES (?, ?, ?, 'seed.example.com', '["t"]', 3, 'k', ?, ?, ?, ?, ?)`,
  );
  const rows = Array.from({ length: n }, (_, i) => {
    const seq = i >= TIE && i < TIE + 100 ? base + TIE : base + i;
    const at = new Date(seq).toISOString();
    return stmt.bind(
      `${userId}-${String(i).padStart(5, "0")}`,
      userId,
      `Seed ${i}`,
      DATA,
      at,
      at,
      seq,
      i % 7 === 6 ? at : null,
    );
  });
  for (let i = 0; i < rows.length; i += 500) await env.DB.batch(rows.slice(i, i + 500));
  await env.DB.prepare("INSERT INTO sync_clocks (user_id, clock) VALUES (?, ?)")
    .bind(userId, base + n)
    .run();
}

const text = async (body: string | ReadableStream<Uint8Array>) =>
  typeof body === "string" ? body : new Response(body).text();

describe("sync pull, built in SQL and streamed page by page", () => {
  it("a full pull past several pages returns every live entry once, in commit order", async () => {
    const user = await TestUser.create();
    const n = FIRST_PAGE + 2 * PULL_PAGE + 145;
    await seed(user.id, n);
    const res = await user.call("GET", "/api/passwords/sync");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as PullBody;
    const live = Array.from({ length: n }, (_, i) => i).filter((i) => i % 7 !== 6);
    expect(body.fullSyncRequired).toBe(true);
    expect(body.changes.map((c) => c.id)).toEqual(
      live
        .map((i) => `${user.id}-${String(i).padStart(5, "0")}`)
        .sort((a, b) => {
          const seq = (id: string) => {
            const i = Number(id.slice(-5));
            return i >= TIE && i < TIE + 100 ? TIE : i;
          };
          return seq(a) - seq(b) || (a < b ? -1 : 1);
        }),
    );
    expect(body.changes.every((c) => c._deleted === false && c.tags instanceof Array)).toBe(true);
  });

  it("a delta pull past a page edge carries tombstones, and its cursor then returns nothing", async () => {
    const user = await TestUser.create();
    const base = Date.now() - 3_600_000;
    await seed(user.id, FIRST_PAGE + 400, base);
    // The cursor falls below the tie, so rows 0..cut are old and every later row is a change.
    const cut = FIRST_PAGE / 10;
    const body = await pull(user, new Date(base + cut).toISOString());
    const expected = FIRST_PAGE + 400 - (cut + 1);
    expect(body.fullSyncRequired).toBe(false);
    expect(new Set(body.changes.map((c) => c.id)).size).toBe(expected);
    expect(
      body.changes
        .filter((c) => c._deleted)
        .every((c) => Object.keys(c).sort().join() === "_deleted,deleted_at,id"),
    ).toBe(true);
    expect((await pull(user, body.serverTimestamp)).changes).toEqual([]);
  });

  it("fewer changes than the first read takes answer as one text; a pull that fills its last page ends after an empty read", async () => {
    // Ten rows a later page, whatever their size, so the second page is exactly full.
    const sizes = { ...PAGE_SIZES, minRows: 10, maxRows: 10 };
    for (const [n, streams] of [
      [FIRST_PAGE - 1, false],
      [FIRST_PAGE + 10, true],
    ] as const) {
      const user = await TestUser.create();
      const base = Date.now() - 3_600_000;
      await seed(user.id, n, base);
      const out = await new SyncService(
        dbFor(env, user.id),
        { entries: 25, bytes: 1_000_000 },
        entryIdClaims(env),
        env,
        sizes,
      ).pull(user.id, new Date(base - 1).toISOString());
      expect(typeof out !== "string").toBe(streams);
      const body = JSON.parse(await text(out)) as PullBody;
      expect(body.changes).toHaveLength(n);
      expect(new Set(body.changes.map((c) => c.id)).size).toBe(n);
    }
  });

  it("each change is exactly what toChange makes of the stored row: placeholders, flags, tags, tombstones", async () => {
    const user = await TestUser.create();
    const now = Date.now() - 60_000;
    const at = new Date(now).toISOString();
    const insert = (
      id: string,
      v: number,
      username: string | null,
      totp: number,
      passkey: number,
      tags: string,
      deleted: string | null,
      seq: number,
    ) =>
      env.DB.prepare(
        `INSERT INTO passwords (id, user_id, name, website, url, username, tags, encryption_version, wrapped_item_key, encrypted_data, has_totp, has_passkey, created_at, updated_at, deleted_at, change_seq)
         VALUES (?, ?, 'Name "quoted" \\ é', NULL, 'https://u.example', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).bind(
        id,
        user.id,
        username,
        tags,
        v,
        v === 3 ? "key" : null,
        v === 3 ? "data" : null,
        totp,
        passkey,
        at,
        at,
        deleted,
        seq,
      );
    await env.DB.batch([
      insert(`${user.id}-a`, 3, null, 1, 0, '["x","y"]', null, now + 1),
      insert(`${user.id}-b`, -1, "alice@example.com", 0, 1, "[]", null, now + 2),
      insert(`${user.id}-c`, 3, "ignored", 0, 0, '["z"]', at, now + 3),
      env.DB.prepare("INSERT INTO sync_clocks (user_id, clock) VALUES (?, ?)").bind(
        user.id,
        now + 10,
      ),
    ]);
    const db = dbFor(env, user.id);
    const rows = await db
      .select()
      .from(passwords)
      .where(eq(passwords.userId, user.id))
      .orderBy(passwords.changeSeq)
      .all();
    const body = JSON.parse(
      await text(
        await new SyncService(db, { entries: 25, bytes: 1_000_000 }, entryIdClaims(env), env).pull(
          user.id,
          new Date(now - 1000).toISOString(),
        ),
      ),
    );
    expect(body.changes).toEqual(rows.map(toChange));
  });

  it("a write made while a pull streams is not lost: the pull stops at its clock and the next delta has it", async () => {
    const user = await TestUser.create();
    await seed(user.id, 2 * FIRST_PAGE + 100);
    const db = dbFor(env, user.id);
    // Pages of 20 after the first: the read running ahead holds rows up to about 240, far from the victim.
    const sizes = { ...PAGE_SIZES, minRows: 20, maxRows: 20 };
    const stream = (await new SyncService(
      db,
      { entries: 25, bytes: 1_000_000 },
      entryIdClaims(env),
      env,
      sizes,
    ).pull(user.id, undefined)) as ReadableStream<Uint8Array>;
    const reader = stream.getReader();
    const chunks: Uint8Array[] = [(await reader.read()).value!];
    // Only the first page has been sent and the second read: change an entry on a later one.
    const victim = `${user.id}-${String(2 * FIRST_PAGE + 51).padStart(5, "0")}`;
    await env.DB.prepare("UPDATE sync_clocks SET clock = clock + 1 WHERE user_id = ?")
      .bind(user.id)
      .run();
    await env.DB.prepare(
      "UPDATE passwords SET name = 'Edited', change_seq = (SELECT clock FROM sync_clocks WHERE user_id = ?) WHERE id = ?",
    )
      .bind(user.id, victim)
      .run();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    const body = JSON.parse(
      new TextDecoder().decode(await new Blob(chunks).arrayBuffer()),
    ) as PullBody;
    expect(body.changes.map((c) => c.id)).not.toContain(victim);
    expect(body.changes).toHaveLength(
      Array.from({ length: 2 * FIRST_PAGE + 100 }, (_, i) => i).filter((i) => i % 7 !== 6).length -
        1,
    );
    const next = await pull(user, body.serverTimestamp);
    expect(next.changes.map((c) => [c.id, c.name])).toContainEqual([victim, "Edited"]);
  });
});
