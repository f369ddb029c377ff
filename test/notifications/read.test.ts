import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createNotification } from "../support/notifications";

const readFlag = async (id: string) =>
  (await env.DB.prepare("SELECT is_read FROM notifications WHERE id = ?")
    .bind(id)
    .first<{ is_read: number }>())!.is_read;

describe("notifications: marking read", () => {
  it("PATCH marks one read (and unread again); the unread count follows", async () => {
    const user = await TestUser.create();
    const a = await createNotification(user, { title: "A" });
    await createNotification(user, { title: "B" });
    const res = await user.call("PATCH", `/api/notifications/${a.id}`, { body: { is_read: true } });
    expect(res.status).toBe(200);
    const { notification } = (await res.json()) as {
      notification: { id: string; is_read: boolean };
    };
    expect(notification).toMatchObject({ id: a.id, is_read: true });
    expect(await readFlag(a.id)).toBe(1);
    const list = (await (await user.call("GET", "/api/notifications")).json()) as {
      unread_count: number;
    };
    expect(list.unread_count).toBe(1);
    expect(
      (await user.call("PATCH", `/api/notifications/${a.id}`, { body: { is_read: false } })).status,
    ).toBe(200);
    expect(await readFlag(a.id)).toBe(0);
  });

  it("POST /read marks every unread one of the caller's, and no one else's", async () => {
    const user = await TestUser.create();
    const other = await TestUser.create();
    await createNotification(user);
    await createNotification(user);
    const theirs = await createNotification(other);
    const res = await user.call("POST", "/api/notifications/read");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, updated: 2 });
    expect(
      ((await (await user.call("GET", "/api/notifications")).json()) as { unread_count: number })
        .unread_count,
    ).toBe(0);
    expect(await readFlag(theirs.id)).toBe(0);
  });

  it("another user's notification is not found and stays unread; a bad body changes nothing", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const n = await createNotification(owner);
    await expectErrorBody(
      await intruder.call("PATCH", `/api/notifications/${n.id}`, { body: { is_read: true } }),
      404,
      "not_found",
    );
    await expectErrorBody(
      await owner.call("PATCH", `/api/notifications/${n.id}`, { body: { is_read: "yes" } }),
      400,
      "validation_failed",
    );
    await expectErrorBody(
      await owner.call("PATCH", `/api/notifications/${n.id}`, { body: {} }),
      400,
      "validation_failed",
    );
    expect(await readFlag(n.id)).toBe(0);
  });

  it("needs a CSRF token like any other write", async () => {
    const user = await TestUser.create();
    const n = await createNotification(user);
    const res = await user.call("PATCH", `/api/notifications/${n.id}`, {
      body: { is_read: true },
      csrf: false,
    });
    expect(res.status).toBe(403);
    expect(await readFlag(n.id)).toBe(0);
  });
});
