import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { entryIdClaims } from "../../src/db/entry-ids";
import { nextLimit, pageBytes, PAGE_SIZES, type PageSizes } from "../../src/domains/sync/repo";
import { SyncService } from "../../src/domains/sync/service";
import { TestUser } from "../support/auth";
import { pull, type PullBody } from "./helpers";

/**
 * Seeds rows straight into D1: `data(i)` is row i's ciphertext, every `tie` rows share one commit
 * stamp (so page edges fall inside a tie), and every seventh row is a tombstone.
 */
async function seed(
  userId: string,
  n: number,
  { data = (_: number): string => "d", tie = 1, base = Date.now() - 3_600_000 } = {},
) {
  const stmt = env.DB.prepare(
    `INSERT INTO passwords (id, user_id, name, website, tags, encryption_version, wrapped_item_key, encrypted_data, created_at, updated_at, change_seq, deleted_at)
     VALUES (?, ?, ?, 'seed.example.com', '[]', 3, 'k', ?, ?, ?, ?, ?)`,
  );
  const rows = Array.from({ length: n }, (_, i) => {
    const seq = base + Math.floor(i / tie) * tie;
    const at = new Date(seq).toISOString();
    return stmt.bind(
      `${userId}-${String(i).padStart(5, "0")}`,
      userId,
      `Seed ${i}`,
      data(i),
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
  // Ids are zero-padded, so within a tie their order is the index's (seq, id) order too.
  return Array.from({ length: n }, (_, i) => i)
    .filter((i) => i % 7 !== 6)
    .map((i) => `${userId}-${String(i).padStart(5, "0")}`);
}

/** The pull's chunks as the runtime would take them, and the body they make. */
async function drain(user: TestUser, sizes: PageSizes, since?: string) {
  const out = await new SyncService(
    dbFor(env, user.id),
    { entries: 25, bytes: 10_000_000 },
    entryIdClaims(env),
    env,
    sizes,
  ).pull(user.id, since);
  if (typeof out === "string") return { chunks: 1, body: JSON.parse(out) as PullBody };
  const parts: Uint8Array[] = [];
  const reader = out.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return {
    chunks: parts.length,
    body: JSON.parse(new TextDecoder().decode(await new Blob(parts).arrayBuffer())) as PullBody,
  };
}

describe("sync pull pages sized by bytes, one read ahead", () => {
  it("many small pages, edges inside ties of one commit stamp: every live row exactly once, in (commit, id) order", async () => {
    const user = await TestUser.create();
    const live = await seed(user.id, 700, { tie: 9 });
    // About 250 bytes a row: pages of 4 to 13 rows, their edges falling all over the ties.
    const { chunks, body } = await drain(user, { first: 7, bytes: 2_000, minRows: 4, maxRows: 13 });
    expect(body.changes.map((c) => c.id)).toEqual(live);
    expect(chunks).toBeGreaterThan(50);
    expect(body.fullSyncRequired).toBe(true);
  });

  it("a delta pull across many pages carries its tombstones once each", async () => {
    const user = await TestUser.create();
    const base = Date.now() - 3_600_000;
    await seed(user.id, 300, { base, tie: 4 });
    const { body } = await drain(
      user,
      { first: 5, bytes: 1_500, minRows: 3, maxRows: 8 },
      new Date(base - 1).toISOString(),
    );
    expect(body.changes).toHaveLength(300);
    expect(new Set(body.changes.map((c) => c.id)).size).toBe(300);
    expect(body.changes.filter((c) => c._deleted)).toHaveLength(Math.floor(300 / 7));
  });

  it("rows larger than a page's byte budget still come, at the fewest rows a page takes, and page sizes follow the rows", async () => {
    const user = await TestUser.create();
    // Rows 100..159 carry 6,000 bytes of ciphertext, the rest one byte.
    const live = await seed(user.id, 260, {
      data: (i) => (i >= 100 && i < 160 ? "x".repeat(6_000) : "d"),
    });
    const sizes = { first: 10, bytes: 4_000, minRows: 2, maxRows: 40 };
    const { chunks, body } = await drain(user, sizes);
    expect(body.changes.map((c) => c.id)).toEqual(live);
    expect(body.changes.filter((c) => String(c.encrypted_data).length === 6_000)).toHaveLength(
      live.filter((id) => {
        const i = Number(id.slice(-5));
        return i >= 100 && i < 160;
      }).length,
    );
    // Small rows fill pages of up to 40; the large ones go two a page: more chunks than rows/40.
    expect(chunks).toBeGreaterThan(Math.ceil((260 - 10) / 40) + 20);
  });

  it("an empty vault answers one text with no changes", async () => {
    const user = await TestUser.create();
    const res = await user.call("GET", "/api/passwords/sync");
    expect(res.status).toBe(200);
    const body = (await res.json()) as PullBody;
    expect(body.changes).toEqual([]);
    expect(body.fullSyncRequired).toBe(true);
    expect(Number.isNaN(Date.parse(body.serverTimestamp))).toBe(false);
    expect((await pull(user, body.serverTimestamp)).changes).toEqual([]);
  });

  it("an entry created while the pull streams comes with the next delta, not this pull", async () => {
    const user = await TestUser.create();
    const live = await seed(user.id, 200);
    const out = (await new SyncService(
      dbFor(env, user.id),
      { entries: 25, bytes: 10_000_000 },
      entryIdClaims(env),
      env,
      { first: 10, bytes: 1_000, minRows: 5, maxRows: 5 },
    ).pull(user.id, undefined)) as ReadableStream<Uint8Array>;
    const reader = out.getReader();
    const parts = [(await reader.read()).value!];
    // A write as the service makes one: the clock advances and the row takes its value.
    const id = `${user.id}-new`;
    await env.DB.prepare("UPDATE sync_clocks SET clock = clock + 1 WHERE user_id = ?")
      .bind(user.id)
      .run();
    await env.DB.prepare(
      `INSERT INTO passwords (id, user_id, name, website, tags, encryption_version, wrapped_item_key, encrypted_data, created_at, updated_at, change_seq)
       VALUES (?, ?, 'New', 'n.example.com', '[]', 3, 'k', 'd', ?, ?, (SELECT clock FROM sync_clocks WHERE user_id = ?))`,
    )
      .bind(id, user.id, new Date().toISOString(), new Date().toISOString(), user.id)
      .run();
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    const body = JSON.parse(
      new TextDecoder().decode(await new Blob(parts).arrayBuffer()),
    ) as PullBody;
    expect(body.changes.map((c) => c.id)).toEqual(live);
    expect((await pull(user, body.serverTimestamp)).changes.map((c) => c.id)).toEqual([id]);
  });

  it("a pull cancelled mid-stream, its read ahead still running, leaves the next pull whole", async () => {
    const user = await TestUser.create();
    const live = await seed(user.id, 120);
    const sizes = { first: 10, bytes: 1_000, minRows: 5, maxRows: 5 };
    const out = (await new SyncService(
      dbFor(env, user.id),
      { entries: 25, bytes: 10_000_000 },
      entryIdClaims(env),
      env,
      sizes,
    ).pull(user.id, undefined)) as ReadableStream<Uint8Array>;
    const reader = out.getReader();
    await reader.read();
    await reader.cancel();
    expect((await drain(user, sizes)).body.changes.map((c) => c.id)).toEqual(live);
  });

  it("a page's rows follow the average size of the page before, within the bounds", () => {
    const sizes = { first: 200, bytes: 100_000, minRows: 20, maxRows: 1_000 };
    const page = (n: number, perRow: number) => ({
      body: "x".repeat(n * perRow),
      n,
      end: { seq: 1, id: "a" },
      more: true,
    });
    expect(nextLimit(page(200, 500), sizes)).toBe(200);
    expect(nextLimit(page(200, 50), sizes)).toBe(1_000);
    expect(nextLimit(page(20, 50_000), sizes)).toBe(20);
    expect(nextLimit(page(200, 768), PAGE_SIZES)).toBe(Math.floor(PAGE_SIZES.bytes / 768));
  });

  it("the byte budget doubles page by page up to its ceiling, and the rows follow it", () => {
    const sizes = { first: 200, bytes: 100_000, maxBytes: 400_000, minRows: 20, maxRows: 10_000 };
    expect([0, 1, 2, 3, 10, 5_000].map((i) => pageBytes(sizes, i))).toEqual([
      100_000, 200_000, 400_000, 400_000, 400_000, 400_000,
    ]);
    const page = { body: "x".repeat(200 * 500), n: 200, end: { seq: 1, id: "a" }, more: true };
    expect([0, 1, 2, 3].map((i) => nextLimit(page, sizes, i))).toEqual([200, 400, 800, 800]);
    // Without a ceiling the budget stays where it starts.
    expect(pageBytes({ first: 1, bytes: 5_000, minRows: 1, maxRows: 9 }, 7)).toBe(5_000);
    expect(pageBytes(PAGE_SIZES, 0)).toBe(PAGE_SIZES.bytes);
    expect(pageBytes(PAGE_SIZES, 100)).toBe(PAGE_SIZES.maxBytes);
  });

  it("pages that grow as the pull goes on still carry every live row once, in order, with fewer reads", async () => {
    const user = await TestUser.create();
    const live = await seed(user.id, 400, { tie: 5 });
    // About 250 bytes a row: flat pages of 8 rows, against 8, 16, 32, then 64 rows a page.
    const flat = await drain(user, { first: 7, bytes: 2_000, minRows: 2, maxRows: 500 });
    const growing = await drain(user, {
      first: 7,
      bytes: 2_000,
      maxBytes: 16_000,
      minRows: 2,
      maxRows: 500,
    });
    expect(growing.body.changes.map((c) => c.id)).toEqual(live);
    expect(flat.body.changes.map((c) => c.id)).toEqual(live);
    expect(growing.chunks).toBeLessThan(flat.chunks / 4);
  });
});
