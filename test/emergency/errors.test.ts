import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  accepted,
  invite,
  inviteBody,
  inviteTokenFor,
  requested,
  type Contact,
} from "../support/emergency";
import { contactRow, db, HOUR, iso, setContact } from "../support/recovery";
import { emergencyContacts } from "../../src/db/schema";
import { eq } from "drizzle-orm";

const ownedCount = async (ownerId: string) =>
  (await db.select().from(emergencyContacts).where(eq(emergencyContacts.ownerId, ownerId)).all())
    .length;

describe("emergency access: validation", () => {
  it("refuses bad invitation bodies and stores nothing", async () => {
    const bad: [Record<string, unknown>, string][] = [
      [inviteBody("friend@example.test", { wait_hours: 0 }), "wait_hours"],
      [inviteBody("friend@example.test", { wait_hours: 721 }), "wait_hours"],
      [inviteBody("friend@example.test", { wait_hours: 1.5 }), "wait_hours"],
      [inviteBody("not-an-email"), "email"],
      [inviteBody("friend@example.test", { wrapped_access_key: "" }), "wrapped_access_key"],
      [inviteBody("friend@example.test", { invite_salt: undefined }), "invite_salt"],
    ];
    for (const [body, field] of bad) {
      // A fresh owner per case: the 5-per-minute limit counts refused requests too (D2 order).
      const owner = await TestUser.create();
      const err = await expectErrorBody(
        await owner.call("POST", "/api/vault/emergency", { body }),
        400,
        "VALIDATION_ERROR",
      );
      expect(err.details?.map((d) => d.field)).toContain(field);
      expect(await ownedCount(owner.id)).toBe(0);
    }
  });

  it("refuses self-invitation and a second live invitation of the same address (409)", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    await expectErrorBody(
      await owner.call("POST", "/api/vault/emergency", {
        body: inviteBody(owner.email.toUpperCase()),
      }),
      409,
      "CONFLICT",
    );
    await invite(owner, friend);
    await expectErrorBody(
      await owner.call("POST", "/api/vault/emergency", { body: inviteBody(friend.email) }),
      409,
      "CONFLICT",
    );
    expect(await ownedCount(owner.id)).toBe(1);
  });

  it("PATCH refuses bad wait_hours and leaves the record unchanged", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await invite(owner, friend, { wait_hours: 8 });
    for (const body of [{ wait_hours: 0 }, { wait_hours: 721 }, {}, { wait_hours: "5" }]) {
      await expectErrorBody(
        await owner.call("PATCH", `/api/vault/emergency/${contact.id}`, { body }),
        400,
        "VALIDATION_ERROR",
      );
    }
    expect((await contactRow(contact.id))!.waitHours).toBe(8);
  });
});

describe("emergency access: invitation tokens", () => {
  it("an unknown token is 404, an expired invitation 410, a second acceptance 409", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    await expectErrorBody(
      await friend.call("POST", "/api/vault/emergency/accept", { body: { token: "x".repeat(43) } }),
      404,
      "NOT_FOUND",
    );

    const { contact } = await invite(owner, friend);
    const token = await inviteTokenFor(friend.email);
    await setContact(contact.id, { inviteExpiresAt: iso(Date.now() - 1000) });
    await expectErrorBody(
      await friend.call("POST", "/api/vault/emergency/accept", { body: { token } }),
      410,
      "GONE",
    );
    expect((await contactRow(contact.id))!.status).toBe("pending_invite");

    await setContact(contact.id, { inviteExpiresAt: iso(Date.now() + HOUR) });
    expect(
      (await friend.call("POST", "/api/vault/emergency/accept", { body: { token } })).status,
    ).toBe(200);
    await expectErrorBody(
      await friend.call("POST", "/api/vault/emergency/accept", { body: { token } }),
      409,
      "CONFLICT",
    );
  });
});

describe("emergency access: state rules", () => {
  it("request needs an active record (409 otherwise)", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await requested(owner, friend);
    await expectErrorBody(
      await friend.call("POST", "/api/vault/emergency/request", {
        body: { contact_id: contact.id },
      }),
      409,
      "CONFLICT",
    );
    await owner.call("POST", "/api/vault/emergency/respond", {
      body: { contact_id: contact.id, action: "deny" },
    });
    await expectErrorBody(
      await friend.call("POST", "/api/vault/emergency/request", {
        body: { contact_id: contact.id },
      }),
      409,
      "CONFLICT",
    );
    expect((await contactRow(contact.id))!.status).toBe("access_denied");
  });

  it("respond needs a pending request (409) and a valid action (400)", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await accepted(owner, friend);
    await expectErrorBody(
      await owner.call("POST", "/api/vault/emergency/respond", {
        body: { contact_id: contact.id, action: "approve" },
      }),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await owner.call("POST", "/api/vault/emergency/respond", {
        body: { contact_id: contact.id, action: "maybe" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect((await contactRow(contact.id))!.status).toBe("active");
  });

  it("the key endpoint: 400 without contact_id, 404 for an absent record, 403 before a grant", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await accepted(owner, friend);
    await expectErrorBody(
      await friend.call("GET", "/api/vault/emergency/access"),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await friend.call("GET", "/api/vault/emergency/access?contact_id=nope"),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await friend.call("GET", `/api/vault/emergency/access?contact_id=${contact.id}`),
      403,
      "FORBIDDEN",
    );
  });

  it("a revoked record cannot be changed, and revoking again is harmless", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await accepted(owner, friend);
    expect((await owner.call("DELETE", `/api/vault/emergency/${contact.id}`)).status).toBe(200);
    expect((await owner.call("DELETE", `/api/vault/emergency/${contact.id}`)).status).toBe(200);
    await expectErrorBody(
      await owner.call("PATCH", `/api/vault/emergency/${contact.id}`, { body: { wait_hours: 3 } }),
      409,
      "CONFLICT",
    );
    const list = (await (await owner.call("GET", "/api/vault/emergency")).json()) as {
      as_owner: Contact[];
    };
    expect(list.as_owner[0].status).toBe("revoked");
  });

  it("rate-limits invitations at 5 per 60 seconds", async () => {
    const owner = await TestUser.create();
    for (let i = 0; i < 5; i++) {
      expect(
        (
          await owner.call("POST", "/api/vault/emergency", {
            body: inviteBody(`c${i}@example.test`),
          })
        ).status,
      ).toBe(201);
    }
    const res = await owner.call("POST", "/api/vault/emergency", {
      body: inviteBody("c9@example.test"),
    });
    await expectErrorBody(res, 429, "RATE_LIMITED");
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await ownedCount(owner.id)).toBe(5);
  });
});
