import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createNotification, notificationBody } from "../support/notifications";

describe("notifications: security", () => {
  it("creating for another user is 403 forbidden and creates nothing for either", async () => {
    const alice = await TestUser.create();
    const bob = await TestUser.create();
    const res = await alice.call("POST", "/api/notifications", { body: notificationBody(bob) });
    await expectErrorBody(res, 403, "forbidden");
    expect(await (await bob.call("GET", "/api/notifications")).json()).toEqual({
      notifications: [],
      unread_count: 0,
      next_cursor: null,
    });
    expect(await (await alice.call("GET", "/api/notifications")).json()).toEqual({
      notifications: [],
      unread_count: 0,
      next_cursor: null,
    });
  });

  it("the caller's own id is accepted in whatever form the identity provider uses; a foreign non-UUID is 400", async () => {
    const user = await TestUser.create({ sub: `idp|${crypto.randomUUID().slice(0, 8)}` });
    expect(
      (await user.call("POST", "/api/notifications", { body: notificationBody(user) })).status,
    ).toBe(201);
    await expectErrorBody(
      await user.call("POST", "/api/notifications", {
        body: notificationBody(user, { user_id: "idp|someone-else" }),
      }),
      400,
      "validation_failed",
    );
  });

  it("a user sees and clears only their own notifications", async () => {
    const alice = await TestUser.create();
    const bob = await TestUser.create();
    const a = await createNotification(alice);
    const b = await createNotification(bob);
    expect(
      (
        (await (await alice.call("GET", "/api/notifications")).json()) as {
          notifications: { id: string }[];
        }
      ).notifications.map((n) => n.id),
    ).toEqual([a.id]);
    expect(await (await alice.call("DELETE", "/api/notifications")).json()).toEqual({
      success: true,
      deleted: 1,
    });
    expect(
      (
        (await (await bob.call("GET", "/api/notifications")).json()) as {
          notifications: { id: string }[];
        }
      ).notifications.map((n) => n.id),
    ).toEqual([b.id]);
  });

  it("action_url refuses scripts, data and protocol-relative links but takes http(s) and app paths", async () => {
    const user = await TestUser.create();
    for (const url of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "data:text/html,<b>x</b>",
      "//evil.test/x",
      "/\\evil.test",
      "ftp://files.test/x",
    ]) {
      const res = await user.call("POST", "/api/notifications", {
        body: notificationBody(user, { action_url: url }),
      });
      await expectErrorBody(res, 400, "validation_failed");
    }
    for (const url of ["https://app.test/x", "http://localhost:8787/x", "/dashboard?tab=shares"]) {
      expect(
        (
          await user.call("POST", "/api/notifications", {
            body: notificationBody(user, { action_url: url }),
          })
        ).status,
      ).toBe(201);
    }
  });

  it("without a token every notification route is 401 unauthorized (lower-case)", async () => {
    for (const method of ["GET", "POST", "DELETE"]) {
      const res = await SELF.fetch("https://vault.test/api/notifications", {
        method,
        headers: { "content-type": "application/json" },
        body: method === "GET" ? undefined : "{}",
      });
      await expectErrorBody(res, 401, "unauthorized");
    }
  });
});
