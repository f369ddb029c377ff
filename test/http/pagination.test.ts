import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createParent, encryptedBody, upload } from "../support/attachments";
import { expectErrorBody, TestUser } from "../support/auth";
import { register } from "../support/devices";
import { accepted, invite } from "../support/emergency";
import { createEntry } from "../support/fixtures";
import { createNotification, markRead } from "../support/notifications";
import { createShare, invite as wrappedInvite } from "../support/sharing";
import { connectSource } from "../discovery/support";

/**
 * Cursor pagination (docs/decisions/platform.md, "Cursor pagination") on every list endpoint that can grow:
 * each list is walked page by page and compared with the order the decision names, written here
 * as SQL. Timestamps (or names) are rewritten into two groups of equal values first, so the id
 * (or insertion order) tie-breaker decides within a group and a page boundary falls inside one.
 */

type Body = Record<string, unknown> & { next_cursor: string | null };
type Item = { id: string };

type Seeded = {
  user: TestUser;
  /** The list's path with its fixed query, without limit or cursor. */
  path: string;
  /** The ids in the decided order, read from the database after seeding. */
  expected: () => Promise<string[]>;
  /** An item of the same kind that belongs to another user. */
  foreign: string;
};

type Case = {
  name: string;
  /** Every key of the body: the ones clients already read, plus next_cursor. */
  keys: string[];
  items: (b: Body) => Item[];
  /** The notifications family answers with lower-case codes (spec "Errors"). */
  lowerCase?: boolean;
  seed: () => Promise<Seeded>;
};

/** Distinct, increasing timestamps in creation order, so an expectation can name the order by hand. */
async function stamp(table: string, idsInCreationOrder: string[]) {
  for (const [i, id] of idsInCreationOrder.entries())
    await env.DB.prepare(`UPDATE ${table} SET created_at = ? WHERE id = ?`)
      .bind(`2026-01-01T00:00:0${i}.000Z`, id)
      .run();
}

const ids = async (sql: string, ...binds: unknown[]) =>
  (
    await env.DB.prepare(sql)
      .bind(...binds)
      .all<{ id: string }>()
  ).results.map((r) => r.id);

/** Two groups of equal values, alternating by insertion order, so both sort keys matter. */
async function twoGroups(
  table: string,
  column: string,
  where: string,
  bind: string,
  values = ["2026-01-02T00:00:00.000Z", "2026-01-01T00:00:00.000Z"],
) {
  await env.DB.prepare(
    `UPDATE ${table} SET ${column} = CASE WHEN rowid % 2 = 0 THEN ?1 ELSE ?2 END WHERE ${where} = ?3`,
  )
    .bind(values[0], values[1], bind)
    .run();
}

function withQuery(path: string, q: Record<string, string | number | undefined>) {
  const url = new URL(path, "https://x");
  for (const [k, v] of Object.entries(q)) if (v !== undefined) url.searchParams.set(k, String(v));
  return `${url.pathname}${url.search}`;
}

async function page(user: TestUser, path: string, q: Record<string, string | number | undefined>) {
  const res = await user.call("GET", withQuery(path, q));
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Body;
}

/** Follows next_cursor to the end; checks each page's size and that its cursor is its last id. */
async function walk(c: Case, s: Seeded, limit: number, path = s.path) {
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const body = await page(s.user, path, { limit, cursor });
    expect(Object.keys(body).sort()).toEqual([...c.keys].sort());
    const items = c.items(body);
    pages++;
    seen.push(...items.map((i) => i.id));
    if (body.next_cursor === null) {
      expect(items.length).toBeLessThanOrEqual(limit);
      return { seen, pages };
    }
    expect(items).toHaveLength(limit);
    expect(body.next_cursor).toBe(items.at(-1)!.id);
    cursor = body.next_cursor;
    expect(pages).toBeLessThan(20);
  }
}

const cases: Case[] = [
  {
    name: "identities",
    keys: ["identities", "stats", "next_cursor"],
    items: (b) => b.identities as Item[],
    seed: async () => {
      const [user, other] = await Promise.all([TestUser.create(), TestUser.create()]);
      for (let i = 0; i < 5; i++)
        expect((await user.call("POST", "/api/identities", { body: {} })).status).toBe(201);
      const foreign = (await (
        await other.call("POST", "/api/identities", { body: {} })
      ).json()) as { identity: Item };
      await twoGroups("identities", "created_at", "user_id", user.id);
      return {
        user,
        path: "/api/identities",
        foreign: foreign.identity.id,
        expected: () =>
          ids(
            "SELECT id FROM identities WHERE user_id = ? ORDER BY created_at DESC, id DESC",
            user.id,
          ),
      };
    },
  },
  {
    name: "shares owned",
    keys: ["shares", "setup_required", "next_cursor"],
    items: (b) => b.shares as Item[],
    seed: async () => {
      const [user, other] = await Promise.all([TestUser.create(), TestUser.create()]);
      const entry = await createEntry(user);
      for (let i = 0; i < 5; i++)
        await createShare(user, {
          accountId: entry.id,
          recipientEmail: `r${i}-${user.email}`,
          wrapped_vault_key_invite: wrappedInvite(),
          invite_token_salt: "s",
        });
      const theirs = await createShare(other, {
        accountId: (await createEntry(other)).id,
        recipientEmail: `x-${other.email}`,
        wrapped_vault_key_invite: wrappedInvite(),
        invite_token_salt: "s",
      });
      await twoGroups("shares", "created_at", "owner_id", user.id);
      return {
        user,
        path: "/api/sharing?type=owned",
        foreign: theirs.id,
        expected: () =>
          ids(
            "SELECT id FROM shares WHERE owner_id = ? ORDER BY created_at DESC, id DESC",
            user.id,
          ),
      };
    },
  },
  {
    name: "shares received",
    keys: ["shares", "setup_required", "next_cursor"],
    items: (b) => b.shares as Item[],
    seed: async () => {
      const user = await TestUser.create();
      const owners = await Promise.all([1, 2, 3, 4, 5].map(() => TestUser.create()));
      let foreign = "";
      for (const owner of owners) {
        const entry = await createEntry(owner);
        await createShare(owner, {
          accountId: entry.id,
          recipientEmail: user.email,
          wrapped_vault_key_invite: wrappedInvite(),
          invite_token_salt: "s",
        });
        // A share of the same owner to someone else: the caller must not be able to page from it.
        foreign = (
          await createShare(owner, {
            accountId: entry.id,
            recipientEmail: `x-${owner.email}`,
            wrapped_vault_key_invite: wrappedInvite(),
            invite_token_salt: "s",
          })
        ).id;
      }
      await twoGroups("shares", "created_at", "recipient_email", user.email);
      return {
        user,
        path: "/api/sharing?type=received",
        foreign,
        expected: () =>
          ids(
            "SELECT id FROM shares WHERE recipient_email = ? ORDER BY created_at DESC, id DESC",
            user.email,
          ),
      };
    },
  },
  {
    name: "emergency contacts",
    keys: ["as_owner", "as_contact", "next_cursor"],
    items: (b) => [...(b.as_owner as Item[]), ...(b.as_contact as Item[])],
    seed: async () => {
      const user = await TestUser.create();
      const people = await Promise.all([1, 2, 3, 4, 5].map(() => TestUser.create()));
      for (const p of people.slice(0, 3)) await invite(user, p);
      for (const p of people.slice(3)) await accepted(p, user);
      // A record between two other people: its id is no position in the caller's lists.
      const foreign = (await invite(people[0], people[1])).contact.id;
      await twoGroups("emergency_contacts", "created_at", "owner_id", user.id);
      await twoGroups("emergency_contacts", "created_at", "contact_user_id", user.id);
      return {
        user,
        path: "/api/vault/emergency",
        foreign,
        expected: async () => [
          ...(await ids(
            "SELECT id FROM emergency_contacts WHERE owner_id = ? ORDER BY created_at DESC, id DESC",
            user.id,
          )),
          ...(await ids(
            "SELECT id FROM emergency_contacts WHERE contact_user_id = ? ORDER BY created_at DESC, id DESC",
            user.id,
          )),
        ],
      };
    },
  },
  {
    name: "attachments",
    keys: ["attachments", "usage", "next_cursor"],
    items: (b) => b.attachments as Item[],
    seed: async () => {
      const [user, other] = await Promise.all([TestUser.create(), TestUser.create()]);
      const parent = await createParent(user);
      for (let i = 0; i < 5; i++) await upload(user, await encryptedBody(parent, 64));
      // Another item of the same user: its attachments are no position in this item's list.
      await upload(user, await encryptedBody(await createParent(user, "note"), 64));
      const foreign = (await upload(other, await encryptedBody(await createParent(other), 64))).id;
      await twoGroups("attachments", "created_at", "parent_id", parent.id);
      return {
        user,
        path: `/api/vault/attachments?parent_type=${parent.type}&parent_id=${parent.id}`,
        foreign,
        expected: () =>
          ids(
            "SELECT id FROM attachments WHERE user_id = ? AND parent_id = ? ORDER BY created_at DESC, id DESC",
            user.id,
            parent.id,
          ),
      };
    },
  },
  {
    name: "discovered accounts",
    keys: ["accounts", "stats", "next_cursor"],
    items: (b) => b.accounts as Item[],
    seed: async () => {
      const [user, other] = await Promise.all([TestUser.create(), TestUser.create()]);
      for (const u of [user, other]) {
        await connectSource(u, "mailx");
        expect((await u.call("POST", "/api/accounts", { body: {} })).status).toBe(200);
      }
      await twoGroups("discovered_accounts", "service_name", "user_id", user.id, [
        "Same name A",
        "Same name B",
      ]);
      const [dismissed] = await ids(
        "SELECT id FROM discovered_accounts WHERE user_id = ? ORDER BY domain LIMIT 1",
        user.id,
      );
      expect(
        (await user.call("PATCH", "/api/accounts", { body: { id: dismissed, dismissed: true } }))
          .status,
      ).toBe(200);
      const [foreign] = await ids(
        "SELECT id FROM discovered_accounts WHERE user_id = ? LIMIT 1",
        other.id,
      );
      return {
        user,
        path: "/api/accounts",
        foreign,
        expected: () =>
          ids(
            "SELECT id FROM discovered_accounts WHERE user_id = ? AND dismissed = 0 ORDER BY service_name, id",
            user.id,
          ),
      };
    },
  },
  {
    name: "devices",
    keys: ["devices", "next_cursor"],
    items: (b) => b.devices as Item[],
    seed: async () => {
      const [user, other] = await Promise.all([TestUser.create(), TestUser.create()]);
      for (let i = 0; i < 5; i++) await register(user, { deviceName: `Device ${i}` });
      const foreign = (await register(other)).device.id;
      await twoGroups("devices", "created_at", "user_id", user.id);
      return {
        user,
        path: "/api/devices",
        foreign,
        expected: () =>
          ids(
            "SELECT id FROM devices WHERE user_id = ? ORDER BY is_current DESC, created_at DESC, id DESC",
            user.id,
          ),
      };
    },
  },
  {
    name: "notifications",
    keys: ["notifications", "unread_count", "next_cursor"],
    items: (b) => b.notifications as Item[],
    lowerCase: true,
    seed: async () => {
      const [user, other] = await Promise.all([TestUser.create(), TestUser.create()]);
      for (let i = 0; i < 5; i++) await createNotification(user, { title: `n${i}` });
      const foreign = (await createNotification(other)).id;
      await twoGroups("notifications", "created_at", "user_id", user.id);
      return {
        user,
        path: "/api/notifications",
        foreign,
        expected: () =>
          ids(
            "SELECT id FROM notifications WHERE user_id = ? ORDER BY created_at DESC, rowid DESC",
            user.id,
          ),
      };
    },
  },
];

describe.each(cases)("cursor pagination: $name", (c) => {
  const validation = c.lowerCase ? "validation_failed" : "VALIDATION_ERROR";

  it("walks every item exactly once, in the decided order, whatever the page size", async () => {
    const s = await c.seed();
    const expected = await s.expected();
    expect(expected.length).toBeGreaterThanOrEqual(5);
    for (const limit of [2, 3]) {
      const { seen, pages } = await walk(c, s, limit);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expected);
      expect(pages).toBe(Math.ceil(expected.length / limit));
    }
    // Without a limit the default (50) takes the whole list in one page.
    const all = await page(s.user, s.path, {});
    expect(c.items(all).map((i) => i.id)).toEqual(expected);
    expect(all.next_cursor).toBeNull();
    // A limit that divides the list exactly: the last page is full and says no more follow.
    const exact = await page(s.user, s.path, { limit: expected.length });
    expect(c.items(exact)).toHaveLength(expected.length);
    expect(exact.next_cursor).toBeNull();

    for (const limit of ["0", "101", "abc", "1.5", "-1", ""]) {
      const err = await expectErrorBody(
        await s.user.call("GET", withQuery(s.path, { limit })),
        400,
        validation,
      );
      expect(err.details?.map((d) => d.field)).toEqual(["limit"]);
    }

    // Another user's item, or an id that names nothing: 400, and none of that user's items leak.
    for (const cursor of [s.foreign, "no-such-id"]) {
      const err = await expectErrorBody(
        await s.user.call("GET", withQuery(s.path, { limit: 2, cursor })),
        400,
        validation,
      );
      expect(err.details).toEqual([{ field: "cursor", message: expect.any(String) }]);
      expect(Object.keys(err).sort()).toEqual(["code", "details", "error", "status"]);
    }
  }, 60_000);
});

describe("cursor pagination keeps each endpoint's filters", () => {
  it("notifications: unread_only pages only unread ones, unread_count counts them all", async () => {
    const user = await TestUser.create();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createNotification(user)).id);
    await markRead(made[2]);
    const c = cases.find((x) => x.name === "notifications")!;
    const s: Seeded = {
      user,
      path: "/api/notifications?unread_only=true",
      foreign: "",
      expected: async () => [],
    };
    const { seen } = await walk(c, s, 2);
    expect(seen).toEqual([made[4], made[3], made[1], made[0]]);
    expect((await page(user, s.path, { limit: 1 })).unread_count).toBe(4);
  });

  it("discovered accounts: include_dismissed pages the dismissed ones too; stats cover every account on every page", async () => {
    const user = await TestUser.create();
    await connectSource(user, "mailx");
    expect((await user.call("POST", "/api/discover-accounts", { body: {} })).status).toBe(200);
    const [dismissed] = await ids(
      "SELECT id FROM discovered_accounts WHERE user_id = ? ORDER BY domain LIMIT 1",
      user.id,
    );
    expect(
      (
        await user.call("PATCH", "/api/discover-accounts", {
          body: { id: dismissed, dismissed: true },
        })
      ).status,
    ).toBe(200);
    const c = cases.find((x) => x.name === "discovered accounts")!;
    const s: Seeded = {
      user,
      path: "/api/discover-accounts?include_dismissed=true",
      foreign: "",
      expected: async () => [],
    };
    const { seen } = await walk(c, s, 4);
    expect(seen).toEqual(
      await ids(
        "SELECT id FROM discovered_accounts WHERE user_id = ? ORDER BY service_name, id",
        user.id,
      ),
    );
    expect(seen).toContain(dismissed);
    const first = await page(user, "/api/discover-accounts", { limit: 1 });
    expect(first.stats).toEqual({
      total: 6,
      inVault: 0,
      notInVault: 6,
      oauthLikely: 0,
      dismissed: 1,
    });
    // A dismissed account still marks a position in the list without it.
    const after = await page(user, "/api/discover-accounts", { limit: 100, cursor: dismissed });
    expect(c.items(after).map((i) => i.id)).not.toContain(dismissed);
  });

  it("identities: a cursor whose identity left the status filter still continues the list", async () => {
    const user = await TestUser.create();
    const made: Item[] = [];
    for (let i = 0; i < 4; i++)
      made.push(
        (
          (await (await user.call("POST", "/api/identities", { body: {} })).json()) as {
            identity: Item;
          }
        ).identity,
      );
    await stamp(
      "identities",
      made.map((m) => m.id),
    );
    const first = await page(user, "/api/identities?status=active", { limit: 2 });
    expect((first.identities as Item[]).map((i) => i.id)).toEqual([made[3].id, made[2].id]);
    expect(
      (await user.call("PATCH", `/api/identities/${made[2].id}`, { body: { status: "paused" } }))
        .status,
    ).toBe(200);
    const second = await page(user, "/api/identities?status=active", {
      limit: 2,
      cursor: first.next_cursor!,
    });
    expect((second.identities as Item[]).map((i) => i.id)).toEqual([made[1].id, made[0].id]);
    expect(second.next_cursor).toBeNull();
  });

  it("devices: the current device leads the first page", async () => {
    const user = await TestUser.create();
    const made: string[] = [];
    for (let i = 0; i < 4; i++) made.push((await register(user)).device.id);
    await stamp("devices", made);
    // The first device registers again and becomes current: it moves to the front.
    await env.DB.prepare("UPDATE devices SET is_current = (id = ?) WHERE user_id = ?")
      .bind(made[0], user.id)
      .run();
    const first = await page(user, "/api/devices", { limit: 2 });
    expect(
      (first.devices as (Item & { is_current: boolean })[]).map((d) => [d.id, d.is_current]),
    ).toEqual([
      [made[0], true],
      [made[3], false],
    ]);
    const second = await page(user, "/api/devices", { limit: 2, cursor: first.next_cursor! });
    expect((second.devices as Item[]).map((d) => d.id)).toEqual([made[2], made[1]]);
  });
});
