import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { notificationBody } from "../support/notifications";

async function count(userId: string) {
  return (await env.DB.prepare("SELECT count(*) AS n FROM notifications WHERE user_id = ?")
    .bind(userId)
    .first<{ n: number }>())!.n;
}

describe("notifications: errors (lower-case codes)", () => {
  it("field limits of the resource table are enforced with validation_failed", async () => {
    const user = await TestUser.create();
    const cases: [Record<string, unknown>, string][] = [
      [{ type: undefined }, "type"],
      [{ title: undefined }, "title"],
      [{ body: undefined }, "body"],
      [{ user_id: undefined }, "user_id"],
      [{ type: "" }, "type"],
      [{ type: "t".repeat(101) }, "type"],
      [{ title: "t".repeat(501) }, "title"],
      [{ body: "b".repeat(5001) }, "body"],
      [{ color: "c".repeat(51) }, "color"],
      [{ icon: "i".repeat(201) }, "icon"],
      [{ action_url: `https://app.test/${"a".repeat(2000)}` }, "action_url"],
      [{ action_url: "not a url" }, "action_url"],
      [{ actor_id: "not-a-uuid" }, "actor_id"],
      [{ actor_email: "nobody" }, "actor_email"],
      [{ actor_name: "n".repeat(201) }, "actor_name"],
      [{ metadata: "text" }, "metadata"],
      [{ metadata: [1, 2] }, "metadata"],
      [{ metadata: { big: "x".repeat(17 * 1024) } }, "metadata"],
      [{ user_id: "not-a-uuid" }, "user_id"],
    ];
    for (const [over, field] of cases) {
      const res = await user.call("POST", "/api/notifications", {
        body: notificationBody(user, over),
      });
      const err = await expectErrorBody(res, 400, "validation_failed");
      expect(
        err.details?.map((d) => d.field),
        JSON.stringify(over).slice(0, 80),
      ).toContain(field);
    }
    expect(await count(user.id)).toBe(0);
  });

  it("the upper limits themselves are accepted", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/notifications", {
      body: notificationBody(user, {
        type: "t".repeat(100),
        title: "t".repeat(500),
        body: "b".repeat(5000),
        color: "c".repeat(50),
        icon: "i".repeat(200),
        actor_name: "n".repeat(200),
        action_url: `/${"a".repeat(1999)}`,
      }),
    });
    expect(res.status).toBe(201);
  });

  it("list query limits: limit 1 to 100 and unread_only 'true' or 'false'", async () => {
    const user = await TestUser.create();
    for (const q of [
      "limit=0",
      "limit=101",
      "limit=abc",
      "limit=-1",
      "limit=1.5",
      "unread_only=yes",
      "unread_only=1",
    ]) {
      await expectErrorBody(
        await user.call("GET", `/api/notifications?${q}`),
        400,
        "validation_failed",
      );
    }
    expect((await user.call("GET", "/api/notifications?limit=1")).status).toBe(200);
    expect((await user.call("GET", "/api/notifications?limit=100")).status).toBe(200);
  });

  it("CSRF, malformed JSON and media type errors on these routes are lower-case too", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/notifications", { body: notificationBody(user), csrf: false }),
      403,
      "forbidden",
    );
    await expectErrorBody(
      await user.call("DELETE", "/api/notifications", { csrf: false }),
      403,
      "forbidden",
    );
    await expectErrorBody(
      await user.call("POST", "/api/notifications", {
        rawBody: "{",
        headers: { "content-type": "application/json" },
      }),
      400,
      "validation_failed",
    );
    await expectErrorBody(
      await user.call("POST", "/api/notifications", {
        rawBody: "a=b",
        headers: { "content-type": "text/plain" },
      }),
      415,
      "unsupported_media_type",
    );
    await expectErrorBody(await user.call("PUT", "/api/notifications"), 405, "method_not_allowed");
  });

  it("create is limited to 30 per 60 seconds, with a lower-case 429", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < 30; i++)
      expect(
        (await user.call("POST", "/api/notifications", { body: notificationBody(user) })).status,
      ).toBe(201);
    const res = await user.call("POST", "/api/notifications", { body: notificationBody(user) });
    await expectErrorBody(res, 429, "rate_limited");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await count(user.id)).toBe(30);
  });

  it("clear-all is limited to 30 per 60 seconds", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < 30; i++)
      expect((await user.call("DELETE", "/api/notifications")).status).toBe(200);
    await expectErrorBody(await user.call("DELETE", "/api/notifications"), 429, "rate_limited");
  });
});
