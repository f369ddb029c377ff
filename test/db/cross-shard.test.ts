import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { liveBrowserCounts } from "../../src/db/live-browsers";
import { bindingOf, directoryBinding } from "../../src/db/shards";
import { purgeExpiredTombstones } from "../../src/domains/sync/purge";
import { createEntry } from "../support/fixtures";
import { createSessionShare, openLive, registerDevice, ticket } from "../support/session-shares";
import { databases, first, holders, last, shards, userOn } from "../support/shard-placement";
import { SELF } from "../support/worker";

/**
 * docs/decisions/scale.md, "Scale: shards, a directory, many databases" across shards. With the default one shard these are ordinary journeys; under
 * VAULT_SHARDS=3 (npm run test:shards) the users are placed on different shards and each row is
 * looked for on every database, so a query that went to the wrong one fails here.
 */
const e = env as unknown as Record<string, unknown>;
const later = () => new Date(Date.now() + 60 * 60_000).toISOString();

describe("data across shards", () => {
  it("a user's entries are written on their shard, and the directory maps them there", async () => {
    for (const shard of shards) {
      const user = await userOn(shard);
      const { id } = await createEntry(user);
      // With one shard the directory is the same database (and listed under its own name too).
      const here = await holders("passwords", "id = ?", id);
      expect(here).toEqual(shards.length === 1 ? databases() : [shard]);
      const map = await bindingOf(e, directoryBinding(e))
        .prepare("SELECT shard FROM user_shards WHERE user_id = ?")
        .bind(user.id)
        .first<{ shard: string }>();
      expect(map?.shard).toBe(shard);
      const listed = (await (await user.call("GET", "/api/passwords")).json()) as {
        data: { id: string }[];
      };
      expect(listed.data.map((p) => p.id)).toEqual([id]);
    }
  });

  it("a viewer on another shard opens an owner's session share by its token", async () => {
    const owner = await userOn(first);
    const viewer = await userOn(last);
    const fp = await registerDevice(viewer);
    const { created } = await createSessionShare(owner, { scheduledStart: later() });
    expect(await holders("session_shares", "id = ?", created.id)).toContain(first);
    if (shards.length > 1)
      expect(await holders("session_shares", "id = ?", created.id)).not.toContain(last);
    expect(await holders("session_share_links", "share_id = ?", created.id)).toContain(
      directoryBinding(e),
    );

    const res = await ticket(viewer, `/api/session-shares/view/${created.shareToken}/ticket`, fp);
    expect(res.status).toBe(200);
    const live = await openLive(((await res.json()) as { wsUrl: string }).wsUrl);
    expect((await live.waitFor((m) => m.type === "status")).status).toBe("scheduled");
    await owner.call("DELETE", `/api/session-shares/${created.id}`);
    expect((await live.closed).code).toBe(4000);
    // An id that no share has is refused before any room is reached.
    const none = await SELF.fetch(
      `https://vault.test/api/session-shares/${crypto.randomUUID()}/live?ticket=${"a".repeat(32)}`,
      { headers: { upgrade: "websocket" } },
    );
    expect(none.status).toBe(404);
  });

  it("the registry's overrides live in the directory, whichever shard the admin is on", async () => {
    const admin = await userOn(last, { admin: true });
    const ip = `203.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const call = (m: string, p: string, body?: unknown) =>
      admin.call(m, p, { body, headers: { "cf-connecting-ip": ip } });
    const domain = `cross-${crypto.randomUUID().slice(0, 8)}.example`;
    expect(
      (await call("POST", "/api/admin/services/registry", { domain, name: "Cross Shard" })).status,
    ).toBe(201);
    const where = await holders("registry_overrides", "domain = ?", domain);
    expect(where).toContain(directoryBinding(e));
    if (shards.length > 1) expect(where).toEqual([directoryBinding(e)]);
    const list = (await (
      await call("GET", `/api/admin/services/registry?search=${domain}`)
    ).json()) as { overrides: { domain: string }[] };
    expect(list.overrides.map((o) => o.domain)).toEqual([domain]);
  });

  it("the scheduled tombstone purge runs on every shard", async () => {
    const gone: string[] = [];
    for (const shard of shards) {
      const user = await userOn(shard);
      const { id } = await createEntry(user);
      expect((await user.call("DELETE", `/api/passwords/${id}`)).status).toBe(200);
      // Deleted before the trash's 30 days, and older than the 30-day cursor window.
      await bindingOf(e, shard)
        .prepare(
          "UPDATE passwords SET change_seq = 1, deleted_at = '2020-01-01T00:00:00.000Z' WHERE id = ?",
        )
        .bind(id)
        .run();
      gone.push(id);
    }
    expect(await purgeExpiredTombstones(e as never)).toBeGreaterThanOrEqual(shards.length);
    for (const id of gone) expect(await holders("passwords", "id = ?", id)).toEqual([]);
  });

  it("the deployment's live-browser count takes in every shard", async () => {
    const before = (await liveBrowserCounts(e, (await userOn(last)).id)).global;
    const owner = await userOn(first);
    const now = new Date().toISOString();
    await bindingOf(e, first)
      .prepare(
        "INSERT INTO reset_jobs (id, user_id, service, service_url, email, status, steps, created_at, updated_at) VALUES (?, ?, 'x', 'https://x.test/', 'a@x.test', 'running', '[]', ?, ?)",
      )
      .bind(crypto.randomUUID(), owner.id, now, now)
      .run();
    // Counted for a user on another shard too: the deployment's cap is one number.
    const other = await userOn(last);
    const counts = await liveBrowserCounts(e, other.id);
    expect(counts.user).toBe(0);
    expect(counts.global).toBeGreaterThanOrEqual(before + 1);
    expect((await liveBrowserCounts(e, owner.id)).user).toBe(1);
  });
});
