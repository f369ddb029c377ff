import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { sharedPair } from "../support/sharing";

// docs/decisions/hardening.md, "Hardening: limits, abuse and failure" item 6: MAX_NOTIFICATION_BYTES_PER_USER (20,000 in the suite). Error codes under
// /api/notifications are lower-case (spec "Errors").
const QUOTA = Number(env.MAX_NOTIFICATION_BYTES_PER_USER);
/** title "t" + 4,000-character body + metadata "{}": 4,003 bytes, so four fit and a fifth does not. */
const note = (user: TestUser) => ({
  user_id: user.id,
  type: "note",
  title: "t",
  body: "x".repeat(4000),
});

const counted = async (userId: string) =>
  (
    await env.DB.prepare("SELECT notification_bytes AS n FROM vault_counters WHERE user_id = ?")
      .bind(userId)
      .first<{ n: number }>()
  )?.n ?? 0;
const stored = async (userId: string) =>
  (
    await env.DB.prepare(
      "SELECT coalesce(sum(length(CAST(title AS BLOB)) + length(CAST(body AS BLOB)) + length(CAST(metadata AS BLOB)) + length(CAST(coalesce(icon, '') AS BLOB)) + length(CAST(coalesce(action_url, '') AS BLOB)) + length(CAST(coalesce(actor_email, '') AS BLOB)) + length(CAST(coalesce(actor_name, '') AS BLOB))), 0) AS n FROM notifications WHERE user_id = ?",
    )
      .bind(userId)
      .first<{ n: number }>()
  )?.n ?? 0;
const rows = (userId: string) =>
  env.DB.prepare(
    "SELECT id, is_read FROM notifications WHERE user_id = ? ORDER BY created_at, rowid",
  )
    .bind(userId)
    .all<{ id: string; is_read: number }>()
    .then((r) => r.results);

describe("notification byte quota", () => {
  it("of eight parallel posts exactly four fit; the others are 503 and nothing unread is dropped", async () => {
    expect(4 * 4003).toBeLessThanOrEqual(QUOTA);
    expect(5 * 4003).toBeGreaterThan(QUOTA);
    const user = await TestUser.create();
    await user.csrf();
    const res = await Promise.all(
      Array.from({ length: 8 }, () =>
        user.call("POST", "/api/notifications", { body: note(user) }),
      ),
    );
    expect(res.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 503, 503, 503, 503]);
    await expectErrorBody(res.find((r) => r.status === 503)!, 503, "service_unavailable");
    expect(await rows(user.id)).toHaveLength(4);
    expect(await counted(user.id)).toBe(await stored(user.id));
  });

  it("a full quota makes room by deleting the oldest read notifications, never unread ones", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < 4; i++)
      expect((await user.call("POST", "/api/notifications", { body: note(user) })).status).toBe(
        201,
      );
    const [oldest, second] = await rows(user.id);
    for (const r of [oldest, second])
      expect(
        (await user.call("PATCH", `/api/notifications/${r.id}`, { body: { is_read: true } }))
          .status,
      ).toBe(200);
    expect((await user.call("POST", "/api/notifications", { body: note(user) })).status).toBe(201);
    const after = await rows(user.id);
    expect(after.map((r) => r.id)).not.toContain(oldest.id);
    expect(after.map((r) => r.id)).toContain(second.id);
    expect(after.filter((r) => !r.is_read)).toHaveLength(3);
    expect(await counted(user.id)).toBe(await stored(user.id));
  });

  it("the service's own notifications are stored even over the quota; the user's next post is refused, not an unread one dropped", async () => {
    const { owner, share, recipient } = await sharedPair();
    for (let i = 0; i < 4; i++)
      expect((await owner.call("POST", "/api/notifications", { body: note(owner) })).status).toBe(
        201,
      );
    const before = (await rows(owner.id)).length;
    expect(
      (
        await recipient.call("POST", `/api/sharing/${share.id}/view`, {
          body: { action: "password_viewed" },
          csrf: false,
        })
      ).status,
    ).toBe(201);
    expect((await rows(owner.id)).length).toBe(before + 1);
    await expectErrorBody(
      await owner.call("POST", "/api/notifications", { body: note(owner) }),
      503,
      "service_unavailable",
    );
    expect((await rows(owner.id)).length).toBe(before + 1);
    expect(await counted(owner.id)).toBe(await stored(owner.id));
  });
});
