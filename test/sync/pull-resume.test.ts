import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { entryIdClaims } from "../../src/db/entry-ids";
import type { PageSizes } from "../../src/domains/sync/repo";
import { resumeToken } from "../../src/domains/sync/resume";
import { SyncService } from "../../src/domains/sync/service";
import { expectErrorBody, TestUser } from "../support/auth";
import { at, envelope, push, type Change } from "./helpers";

/** Small pages, so a few hundred rows make dozens of page edges, many inside ties of one stamp. */
const SIZES: PageSizes = { first: 7, bytes: 2_000, minRows: 4, maxRows: 13 };

/** Seeds rows straight into D1: every `tie` rows share one commit stamp, every seventh is a tombstone. */
async function seed(userId: string, n: number, tie = 5, base = Date.now() - 3_600_000) {
  const stmt = env.DB.prepare(
    `INSERT INTO passwords (id, user_id, name, website, tags, encryption_version, wrapped_item_key, encrypted_data, created_at, updated_at, change_seq, deleted_at)
     VALUES (?, ?, ?, 'seed.example.com', '[]', 3, 'k', 'seed', ?, ?, ?, ?)`,
  );
  const rows = Array.from({ length: n }, (_, i) => {
    const seq = base + Math.floor(i / tie) * tie;
    const stamp = new Date(seq).toISOString();
    return stmt.bind(
      `${userId}-${String(i).padStart(5, "0")}`,
      userId,
      `Seed ${i}`,
      stamp,
      stamp,
      seq,
      i % 7 === 6 ? stamp : null,
    );
  });
  for (let i = 0; i < rows.length; i += 500) await env.DB.batch(rows.slice(i, i + 500));
  await env.DB.prepare("INSERT INTO sync_clocks (user_id, clock) VALUES (?, ?)")
    .bind(userId, base + n)
    .run();
}

/**
 * An entry created as a write commits one (the clock advances and the row takes its value), straight
 * in D1: the seeded vaults are past the test limit on entries, which the push API enforces.
 */
async function createRaw(userId: string) {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare("UPDATE sync_clocks SET clock = max(clock + 1, ?) WHERE user_id = ?").bind(
      Date.now(),
      userId,
    ),
    env.DB.prepare(
      `INSERT INTO passwords (id, user_id, name, website, tags, encryption_version, wrapped_item_key, encrypted_data, created_at, updated_at, change_seq)
       VALUES (?, ?, 'New', 'n.example.com', '[]', 3, 'k', 'new', ?, ?, (SELECT clock FROM sync_clocks WHERE user_id = ?))`,
    ).bind(id, userId, now, now, userId),
  ]);
  return id;
}

type Facts = { serverTimestamp: string; fullSyncRequired: boolean; resumed: boolean };
type Page = { changes: Change[]; resume: string };

/**
 * A page-framed pull as a client reads it, line by line; with `cut`, the connection drops after
 * that many pages (the stream is cancelled, its read ahead still running).
 */
async function read(user: TestUser, opts: { since?: string; resume?: string; cut?: number } = {}) {
  const out = await new SyncService(
    dbFor(env, user.id),
    { entries: 1_000, bytes: 10_000_000 },
    entryIdClaims(env),
    env,
    SIZES,
  ).pull(user.id, opts.since, { resume: opts.resume, format: "ndjson" });
  const stream = typeof out === "string" ? new Response(out).body! : out;
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let facts: Facts | null = null;
  const pages: Page[] = [];
  let complete = false;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    buffered += r.value;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
      buffered = buffered.slice(nl + 1);
      if (!facts) facts = line as Facts;
      else if (line.complete === true) complete = true;
      else pages.push(line as Page);
      if (opts.cut !== undefined && pages.length === opts.cut) {
        await reader.cancel();
        return { facts: facts!, pages, complete: false };
      }
    }
  }
  expect(buffered).toBe("");
  return { facts: facts!, pages, complete };
}

/** A client's store: each page applied as it came (tombstones remove), as the web client does. */
function apply(store: Map<string, Change>, pages: Page[], clear = false) {
  if (clear) store.clear();
  for (const p of pages)
    for (const c of p.changes) c._deleted ? store.delete(c.id) : store.set(c.id, c);
  return store;
}

/** What the server holds now: each live entry's id and ciphertext. */
async function held(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT id, encrypted_data FROM passwords WHERE user_id = ? AND deleted_at IS NULL ORDER BY id",
  )
    .bind(userId)
    .all<{ id: string; encrypted_data: string }>();
  return results.map((r) => [r.id, r.encrypted_data]);
}
const stored = (store: Map<string, Change>) =>
  [...store.values()].map((c) => [c.id, c.encrypted_data]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
const ids = (pages: Page[]) => pages.flatMap((p) => p.changes.map((c) => c.id));
const idOf = (userId: string, i: number) => `${userId}-${String(i).padStart(5, "0")}`;

describe("sync pull resumed after a cut", () => {
  it("resumed after any number of pages, a full pull sends each remaining entry once and ends as an uninterrupted one", async () => {
    const user = await TestUser.create();
    await seed(user.id, 200);
    const whole = await read(user);
    expect(whole.complete).toBe(true);
    expect(whole.facts).toMatchObject({ fullSyncRequired: true, resumed: false });
    expect(whole.pages.length).toBeGreaterThan(12);
    for (const cut of [1, 7, whole.pages.length - 1]) {
      const first = await read(user, { cut });
      const rest = await read(user, { resume: first.pages.at(-1)!.resume });
      expect(rest.complete).toBe(true);
      expect(rest.facts).toMatchObject({ fullSyncRequired: false, resumed: true });
      // Nothing sent twice, nothing left out: the halves join into the uninterrupted pull.
      expect([...ids(first.pages), ...ids(rest.pages)]).toEqual(ids(whole.pages));
    }
  });

  it("rows written, deleted and created between the cut and the resume: the store ends with every live entry once, at its latest version", async () => {
    const user = await TestUser.create();
    await seed(user.id, 200);
    const first = await read(user, { cut: 5 });
    const received = new Set(ids(first.pages));
    const pick = (have: boolean, skip = 0) =>
      Array.from({ length: 200 }, (_, i) => idOf(user.id, i)).filter(
        (id, i) => i % 7 !== 6 && received.has(id) === have,
      )[skip]!;
    const [editedSent, editedUnsent, deletedSent, deletedUnsent] = [
      pick(true),
      pick(false, 3),
      pick(true, 1),
      pick(false, 4),
    ];
    const fresh = await createRaw(user.id);
    const res = await push(user, [
      {
        action: "update",
        id: editedSent,
        data: { encrypted_data: envelope().encrypted_data },
        clientUpdatedAt: at(),
      },
      {
        action: "update",
        id: editedUnsent,
        data: { encrypted_data: envelope().encrypted_data },
        clientUpdatedAt: at(),
      },
      { action: "delete", id: deletedSent, clientUpdatedAt: at() },
      { action: "delete", id: deletedUnsent, clientUpdatedAt: at() },
    ]);
    expect(res.results.map((r) => r.status)).toEqual(["applied", "applied", "applied", "applied"]);

    const rest = await read(user, { resume: first.pages.at(-1)!.resume });
    const resumed = ids(rest.pages);
    expect(new Set(resumed).size).toBe(resumed.length);
    // Only what changed comes again; the rest of what was received does not.
    expect(resumed.filter((id) => received.has(id)).sort()).toEqual(
      [editedSent, deletedSent].sort(),
    );
    expect(resumed).toContain(fresh);
    const store = apply(apply(new Map(), first.pages, true), rest.pages);
    expect(stored(store)).toEqual(await held(user.id));
    expect(store.has(deletedSent) || store.has(deletedUnsent)).toBe(false);
    // The resumed answer's clock is a cursor like any other: nothing is missing after it.
    const after = await read(user, { since: rest.facts.serverTimestamp });
    expect(ids(after.pages)).toEqual([]);
  });

  it("a resumed pull cut off again resumes again, with writes between each cut", async () => {
    const user = await TestUser.create();
    await seed(user.id, 240);
    const store = new Map<string, Change>();
    let last = await read(user, { cut: 3 });
    apply(store, last.pages, true);
    for (let round = 0; round < 3; round++) {
      const sentIds = [...store.keys()];
      const res = await push(user, [
        {
          action: "update",
          id: sentIds[round]!,
          data: { encrypted_data: envelope().encrypted_data },
          clientUpdatedAt: at(),
        },
        { action: "delete", id: sentIds[round + 5]!, clientUpdatedAt: at() },
      ]);
      expect(res.results.map((r) => r.status)).toEqual(["applied", "applied"]);
      await createRaw(user.id);
      const next = await read(user, { resume: last.pages.at(-1)!.resume, cut: 2 });
      expect(next.facts.resumed).toBe(true);
      apply(store, next.pages);
      last = next;
    }
    const rest = await read(user, { resume: last.pages.at(-1)!.resume });
    expect(rest.complete).toBe(true);
    apply(store, rest.pages);
    expect(stored(store)).toEqual(await held(user.id));
  });

  it("a delta pull resumes too: the rest of the changes after the cut, tombstones included, once each", async () => {
    const user = await TestUser.create();
    const base = Date.now() - 3_600_000;
    await seed(user.id, 150, 4, base);
    const since = new Date(base - 1).toISOString();
    const whole = await read(user, { since });
    const first = await read(user, { since, cut: 4 });
    const rest = await read(user, { resume: first.pages.at(-1)!.resume, since });
    expect(rest.facts).toMatchObject({ fullSyncRequired: false, resumed: true });
    expect([...ids(first.pages), ...ids(rest.pages)]).toEqual(ids(whole.pages));
    expect(ids(whole.pages)).toHaveLength(150);
  });

  it("over HTTP: the page-framed answer on request, the spec's object otherwise, and a token that is not one, or too old", async () => {
    const user = await TestUser.create();
    await seed(user.id, 900, 3);
    const lines = await user.call("GET", "/api/passwords/sync", {
      headers: { accept: "application/x-ndjson" },
    });
    expect(lines.status).toBe(200);
    expect(lines.headers.get("content-type")).toBe("application/x-ndjson");
    const text = (await lines.text()).split("\n");
    expect(text.pop()).toBe("");
    expect(JSON.parse(text.at(-1)!)).toEqual({ complete: true });
    const pages = text.slice(1, -1).map((l) => JSON.parse(l) as Page);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flatMap((p) => p.changes)).toHaveLength(900 - Math.floor(900 / 7));

    // The spec's object, resumed: the rest of the entries, as a delta on top of what the client kept.
    const res = await user.call(
      "GET",
      `/api/passwords/sync?resume=${encodeURIComponent(pages[0]!.resume)}`,
    );
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as { changes: Change[]; fullSyncRequired: boolean };
    expect(body.fullSyncRequired).toBe(false);
    expect(body.changes.map((c) => c.id)).toEqual(
      pages.slice(1).flatMap((p) => p.changes.map((c) => c.id)),
    );

    for (const bad of ["nonsense", "1.2", `${Date.now() + 3_600_000}.1.YQ`]) {
      await expectErrorBody(
        await user.call("GET", `/api/passwords/sync?resume=${encodeURIComponent(bad)}`),
        400,
        "VALIDATION_ERROR",
      );
    }
    const old = resumeToken(Date.now() - 31 * 24 * 3_600_000, {
      seq: Date.now() - 31 * 24 * 3_600_000,
      id: "x",
    });
    const again = (await (
      await user.call("GET", `/api/passwords/sync?resume=${encodeURIComponent(old)}`)
    ).json()) as { changes: Change[]; fullSyncRequired: boolean };
    expect(again.fullSyncRequired).toBe(true);
    expect(again.changes).toHaveLength(900 - Math.floor(900 / 7));
  });
});
