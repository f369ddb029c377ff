import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { notify } from "../../src/domains/notifications/notify";
import { TestUser } from "../support/auth";
import { createNotification, markRead, notificationBody } from "../support/notifications";

type List = { notifications: { id: string; is_read: boolean }[]; unread_count: number };

describe("notifications: happy paths", () => {
  it("creates a notification with defaults for the optional fields", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/notifications", { body: notificationBody(user) });
    expect(res.status).toBe(201);
    const { notification } = (await res.json()) as { notification: Record<string, unknown> };
    expect(notification).toEqual({
      id: expect.any(String),
      user_id: user.id,
      type: "info",
      title: "Hello",
      body: "Something happened",
      color: "default",
      icon: null,
      action_url: null,
      actor_id: null,
      actor_email: null,
      actor_name: null,
      metadata: {},
      is_read: false,
      created_at: expect.any(String),
    });
    expect(new Date(notification.created_at as string).toISOString()).toBe(notification.created_at);
  });

  it("stores every optional field as given", async () => {
    const user = await TestUser.create();
    const actor = crypto.randomUUID();
    const n = await createNotification(user, {
      type: "share_request",
      color: "blue",
      icon: "share",
      action_url: "https://app.test/shares/1",
      actor_id: actor,
      actor_email: "bob@example.test",
      actor_name: "Bob",
      metadata: { shareId: "s1", nested: { n: 1 } },
    });
    expect(n).toMatchObject({
      type: "share_request",
      color: "blue",
      icon: "share",
      action_url: "https://app.test/shares/1",
      actor_id: actor,
      actor_email: "bob@example.test",
      actor_name: "Bob",
      metadata: { shareId: "s1", nested: { n: 1 } },
    });
    const list = (await (await user.call("GET", "/api/notifications")).json()) as {
      notifications: unknown[];
    };
    expect(list.notifications).toEqual([n]);
  });

  it("lists newest first, honours limit, and counts every unread one whatever the limit", async () => {
    const user = await TestUser.create();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createNotification(user, { title: `n${i}` }));
    await markRead(made[0].id);
    const res = await user.call("GET", "/api/notifications?limit=2");
    expect(res.status).toBe(200);
    const body = (await res.json()) as List;
    expect(body.notifications.map((n) => n.id)).toEqual([made[4].id, made[3].id]);
    expect(body.unread_count).toBe(4);
    const all = (await (await user.call("GET", "/api/notifications")).json()) as List;
    expect(all.notifications.map((n) => n.id)).toEqual(made.map((n) => n.id).reverse());
  });

  it("unread_only=true lists only unread ones; false lists all", async () => {
    const user = await TestUser.create();
    const a = await createNotification(user);
    const b = await createNotification(user);
    await markRead(b.id);
    const unread = (await (
      await user.call("GET", "/api/notifications?unread_only=true")
    ).json()) as List;
    expect(unread.notifications.map((n) => n.id)).toEqual([a.id]);
    expect(unread.unread_count).toBe(1);
    const all = (await (
      await user.call("GET", "/api/notifications?unread_only=false&limit=100")
    ).json()) as List;
    expect(all.notifications.map((n) => [n.id, n.is_read])).toEqual([
      [b.id, true],
      [a.id, false],
    ]);
  });

  it("the default limit is 50", async () => {
    const user = await TestUser.create();
    await Promise.all(
      Array.from({ length: 55 }, () =>
        notify(dbFor(env, user.id), { userId: user.id, type: "info", title: "t", body: "b" }),
      ),
    );
    const body = (await (await user.call("GET", "/api/notifications")).json()) as List;
    expect(body.notifications).toHaveLength(50);
    expect(body.unread_count).toBe(55);
  });

  it("clear-all deletes read and unread notifications", async () => {
    const user = await TestUser.create();
    const a = await createNotification(user);
    await createNotification(user);
    await markRead(a.id);
    const res = await user.call("DELETE", "/api/notifications");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, deleted: 2 });
    expect(await (await user.call("GET", "/api/notifications")).json()).toEqual({
      notifications: [],
      unread_count: 0,
      next_cursor: null,
    });
  });

  it("notifications the service creates itself (notify helper) are listed like any other", async () => {
    const user = await TestUser.create();
    const actor = crypto.randomUUID();
    const made = await notify(dbFor(env, user.id), {
      userId: user.id,
      type: "emergency_request",
      title: "Emergency access requested",
      body: "A trusted contact asked for access",
      actorId: actor,
      metadata: { contact_id: "c1" },
    });
    const body = (await (await user.call("GET", "/api/notifications")).json()) as List;
    expect(body.notifications).toEqual([made]);
    expect(body.unread_count).toBe(1);
  });
});
