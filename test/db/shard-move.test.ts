import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DIRECTORY_USER_TABLES, moveUser, USER_TABLES } from "../../src/db/shard-move";
import { bindingOf, directoryBinding, pickShard, shardBindings } from "../../src/db/shards";
import { TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { createShare, invite, listShares } from "../support/sharing";

/**
 * The online move of one user between shards (docs/decisions/scale.md, "Scale: shards, a directory, many databases"). Needs two shards at least, so it runs in
 * the VAULT_SHARDS=3 pass of scripts/test.sh (npm run test:shards).
 */
const e = env as unknown as Record<string, unknown>;
const shards = shardBindings(e);
const directory = () => bindingOf(e, directoryBinding(e));

async function userOn(shard: string, opts: { admin?: boolean } = {}) {
  for (;;) {
    const id = crypto.randomUUID();
    if (pickShard(id, shards) === shard) return TestUser.create({ sub: id, admin: opts.admin });
  }
}

/** Rows of the user on one shard, over every per-user table. */
async function rowsOn(shard: string, userId: string) {
  let n = 0;
  for (const [table, column] of USER_TABLES) {
    n +=
      (await bindingOf(e, shard)
        .prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`)
        .bind(userId)
        .first<number>("n")) ?? 0;
  }
  return n;
}

const mapOf = (userId: string) =>
  directory()
    .prepare("SELECT shard, moving_to, cleanup_from FROM user_shards WHERE user_id = ?")
    .bind(userId)
    .first<{ shard: string; moving_to: string | null; cleanup_from: string | null }>();

/**
 * Entries written straight into the user's shard: more than the suite's per-user API limit. Deleted
 * ones (tombstones) count toward no limit, so the API can still create entries beside them.
 */
async function seed(shard: string, userId: string, n: number, opts: { deleted?: boolean } = {}) {
  const now = new Date().toISOString();
  const d1 = bindingOf(e, shard);
  const stmts = Array.from({ length: n }, (_, i) =>
    d1
      .prepare(
        "INSERT INTO passwords (id, user_id, name, encryption_version, created_at, updated_at, deleted_at, change_seq) VALUES (?, ?, ?, 3, ?, ?, ?, ?)",
      )
      .bind(
        crypto.randomUUID(),
        userId,
        `seeded ${i}`,
        now,
        now,
        opts.deleted ? now : null,
        Date.now(),
      ),
  );
  for (let i = 0; i < stmts.length; i += 100) await d1.batch(stmts.slice(i, i + 100));
}

const listNames = async (user: TestUser) => {
  const names: string[] = [];
  for (let page = 1; ; page++) {
    const body = (await (
      await user.call("GET", `/api/passwords?limit=100&page=${page}`)
    ).json()) as { data: { name: string }[] };
    names.push(...body.data.map((p) => p.name));
    if (body.data.length < 100) return names;
  }
};

if (shards.length < 2)
  throw new Error(
    "moves need two shards: VAULT_SHARDS=3 (scripts/test.sh's second pass, npm run test:shards)",
  );

describe("moving a user between shards", () => {
  it("copies every row, switches the map and empties the old shard; the API then serves the new one", async () => {
    const [from, to] = [shards[0]!, shards[1]!];
    const user = await userOn(from);
    const hash = "ab".repeat(32);
    const { id: withHosts } = await createEntry(user, {
      name: "through the API",
      host_hashes: [hash],
    });
    await seed(from, user.id, 250);
    const before = await rowsOn(from, user.id);
    const r = await moveUser(e, user.id, to, { settleMs: 0 });
    expect(r).toMatchObject({ from, to, rowsCopied: before, rowsDeleted: before });
    expect(await rowsOn(to, user.id)).toBe(before);
    expect(await rowsOn(from, user.id)).toBe(0);
    expect(await mapOf(user.id)).toEqual({ shard: to, moving_to: null, cleanup_from: null });
    const names = await listNames(user);
    expect(names).toHaveLength(251);
    expect(names).toContain("through the API");
    // The entry's extra host hashes moved with it: match still finds it by one.
    const match = await user.call(
      "GET",
      `/api/passwords/match?url=elsewhere.example&host_hashes=${hash}`,
    );
    expect(
      ((await match.json()) as { matches: { id: string }[] }).matches.map((m) => m.id),
    ).toEqual([withHosts]);
  });

  it("resumes after a crash before the switch and after a crash before the clean-up", async () => {
    const [from, to] = [shards[1]!, shards[2] ?? shards[0]!];
    const user = await userOn(from);
    await seed(from, user.id, 120);
    const total = await rowsOn(from, user.id);
    const crash = (at: string) => (step: string) => {
      if (step === at) throw new Error(`crash at ${at}`);
    };
    await expect(
      moveUser(e, user.id, to, { settleMs: 0, onStep: crash("copied") }),
    ).rejects.toThrow("crash at copied");
    // Marked, copied, not switched: the old shard still serves, writes are held.
    expect(await mapOf(user.id)).toEqual({ shard: from, moving_to: to, cleanup_from: null });
    expect(await rowsOn(to, user.id)).toBe(total);
    await expect(
      moveUser(e, user.id, to, { settleMs: 0, onStep: crash("switched") }),
    ).rejects.toThrow("crash at switched");
    // Switched, not cleaned: the new shard serves, the old copy is still there to delete.
    expect(await mapOf(user.id)).toEqual({ shard: to, moving_to: null, cleanup_from: from });
    expect((await listNames(user)).length).toBe(120);
    const done = await moveUser(e, user.id, to, { settleMs: 0 });
    expect(done).toMatchObject({ rowsCopied: 0, rowsDeleted: total });
    expect(await rowsOn(from, user.id)).toBe(0);
    expect(await rowsOn(to, user.id)).toBe(total);
    expect(await mapOf(user.id)).toEqual({ shard: to, moving_to: null, cleanup_from: null });
  });

  it("loses no write made throughout a move: writes wait while it copies, then go to the new shard", async () => {
    const [from, to] = [shards[0]!, shards[shards.length - 1]!];
    const user = await userOn(from);
    const { id } = await createEntry(user, { name: "v0" });
    await seed(from, user.id, 2000, { deleted: true });
    const admin = await TestUser.create({ admin: true });
    let moving = true;
    const move = admin
      .call("POST", "/api/admin/shards/moves", { body: { user_id: user.id, to } })
      .finally(() => (moving = false));
    // The writer keeps going until the move has answered, then writes a few times more; paced so
    // the passwords rate limit (30 a minute per user) is not what stops it.
    const created: string[] = [];
    let lastName = "v0";
    let version = 0;
    let after = 0;
    let duringMove = 0;
    while (moving || after < 2) {
      if (!moving) after++;
      else duringMove++;
      version++;
      const name = `v${version}`;
      const res = await user.call("PATCH", `/api/passwords/${id}`, { body: { name } });
      expect(res.status).toBe(200);
      lastName = name;
      if (version % 3 === 0 && created.length < 6)
        created.push((await createEntry(user, { name: `during ${created.length + 1}` })).id);
      await new Promise((r) => setTimeout(r, 300));
    }
    const res = await move;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user_id: user.id, from, to });
    // Writes were made while the move ran (the first waits for the copy), and after it.
    expect(duringMove).toBeGreaterThanOrEqual(2);
    const names = await listNames(user);
    expect(names).toContain(lastName);
    for (let i = 1; i <= created.length; i++) expect(names).toContain(`during ${i}`);
    expect(names).toHaveLength(1 + created.length);
    expect(await rowsOn(from, user.id)).toBe(0);
    const tombstones = await bindingOf(e, to)
      .prepare("SELECT count(*) AS n FROM passwords WHERE user_id = ? AND deleted_at IS NOT NULL")
      .bind(user.id)
      .first<number>("n");
    expect(tombstones).toBe(2000);
  });

  it("leaves the directory's rows where they are: a recipient still opens the moved owner's share", async () => {
    const [from, to] = [shards[0]!, shards[1]!];
    const owner = await userOn(from);
    const recipient = await userOn(to);
    const entry = await createEntry(owner, { name: "shared before the move" });
    const share = await createShare(owner, {
      accountId: entry.id,
      recipientEmail: recipient.email,
      wrapped_vault_key_invite: invite(),
    });
    expect(
      (await recipient.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }))
        .status,
    ).toBe(200);
    expect(
      (
        await owner.call("PUT", "/api/sharing/public-key", {
          body: { publicKey: { kty: "EC", crv: "P-256", x: "x".repeat(43), y: "y".repeat(43) } },
        })
      ).status,
    ).toBe(200);
    const inDirectory = async () => {
      let n = 0;
      for (const [table, column] of DIRECTORY_USER_TABLES) {
        n +=
          (await directory()
            .prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`)
            .bind(owner.id)
            .first<number>("n")) ?? 0;
      }
      return n;
    };
    // The share, the sharing key and the claim of the entry's id.
    expect(await inDirectory()).toBe(3);
    await moveUser(e, owner.id, to, { settleMs: 0 });
    expect(await inDirectory()).toBe(3);
    for (const [table] of DIRECTORY_USER_TABLES)
      expect(USER_TABLES.map(([t]) => t)).not.toContain(table);
    const received = (await listShares(recipient, "received")).shares;
    expect(received.map((s) => [s.id, s.account?.name, s.account?.encrypted_data])).toEqual([
      [share.id, "shared before the move", entry.body.encrypted_data],
    ]);
  });

  it("is for admins only and names a bound shard", async () => {
    const user = await TestUser.create();
    expect(
      (
        await user.call("POST", "/api/admin/shards/moves", {
          body: { user_id: user.id, to: shards[0] },
        })
      ).status,
    ).toBe(403);
    const admin = await TestUser.create({ admin: true });
    expect(
      (
        await admin.call("POST", "/api/admin/shards/moves", {
          body: { user_id: user.id, to: "DB_99" },
        })
      ).status,
    ).toBe(400);
    expect(await (await admin.call("GET", "/api/admin/shards")).json()).toEqual({
      shards,
      directory: directoryBinding(e),
    });
  });
});
