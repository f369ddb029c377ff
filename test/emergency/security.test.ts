import { describe, expect, it } from "vitest";
import { expectErrorBody, signToken, TestUser } from "../support/auth";
import { register } from "../support/devices";
import { accepted, invite, inviteBody, inviteTokenFor, requested } from "../support/emergency";
import { contactRow, signedInAgain } from "../support/recovery";

const access = (u: TestUser, id: string) =>
  u.call("GET", `/api/vault/emergency/access?contact_id=${encodeURIComponent(id)}`);

describe("emergency access: owner-only and contact-only rules", () => {
  it("the contact cannot change the wait time, revoke or respond (403); a stranger gets 404", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const stranger = await TestUser.create();
    const { contact } = await requested(owner, friend, { wait_hours: 10 });
    for (const [who, status, code] of [
      [friend, 403, "FORBIDDEN"],
      [stranger, 404, "NOT_FOUND"],
    ] as const) {
      await expectErrorBody(
        await who.call("PATCH", `/api/vault/emergency/${contact.id}`, { body: { wait_hours: 1 } }),
        status,
        code,
      );
      await expectErrorBody(
        await who.call("DELETE", `/api/vault/emergency/${contact.id}`),
        status,
        code,
      );
      await expectErrorBody(
        await who.call("POST", "/api/vault/emergency/respond", {
          body: { contact_id: contact.id, action: "approve" },
        }),
        status,
        code,
      );
    }
    const row = (await contactRow(contact.id))!;
    expect(row).toMatchObject({
      waitHours: 10,
      status: "access_requested",
      grantAt: contact.grant_at,
    });
  });

  it("only the contact may request access or retrieve the key; the owner gets 403, a stranger 404", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const stranger = await TestUser.create();
    const { contact } = await accepted(owner, friend);
    await expectErrorBody(
      await owner.call("POST", "/api/vault/emergency/request", {
        body: { contact_id: contact.id },
      }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await stranger.call("POST", "/api/vault/emergency/request", {
        body: { contact_id: contact.id },
      }),
      404,
      "NOT_FOUND",
    );
    expect((await contactRow(contact.id))!.status).toBe("active");

    await friend.call("POST", "/api/vault/emergency/request", { body: { contact_id: contact.id } });
    await owner.call("POST", "/api/vault/emergency/respond", {
      body: { contact_id: contact.id, action: "approve" },
    });
    await expectErrorBody(await access(owner, contact.id), 403, "FORBIDDEN");
    await expectErrorBody(await access(stranger, contact.id), 404, "NOT_FOUND");
    expect((await access(friend, contact.id)).status).toBe(200);
  });

  it("an invitation can be accepted only by its addressee, never by the owner", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const other = await TestUser.create();
    const { contact } = await invite(owner, friend);
    const token = await inviteTokenFor(friend.email);
    await expectErrorBody(
      await owner.call("POST", "/api/vault/emergency/accept", { body: { token } }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await other.call("POST", "/api/vault/emergency/accept", { body: { token } }),
      403,
      "FORBIDDEN",
    );
    expect((await contactRow(contact.id))!).toMatchObject({
      status: "pending_invite",
      contactUserId: null,
    });
    // The addressee finds it in the app (D21); the others do not.
    const pendingList = (await (await friend.call("GET", "/api/vault/emergency")).json()) as {
      as_contact: unknown[];
    };
    expect(pendingList.as_contact).toMatchObject([{ id: contact.id, status: "pending_invite" }]);
    expect(
      (
        (await (await other.call("GET", "/api/vault/emergency")).json()) as {
          as_contact: unknown[];
        }
      ).as_contact,
    ).toEqual([]);
  });

  it("lists never carry the wrapped key, the salt or the token hash", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact, body } = await requested(owner, friend);
    await owner.call("POST", "/api/vault/emergency/respond", {
      body: { contact_id: contact.id, action: "approve" },
    });
    const row = (await contactRow(contact.id))!;
    for (const u of [owner, friend]) {
      const text = await (await u.call("GET", "/api/vault/emergency")).text();
      for (const secret of [body.wrapped_access_key, body.invite_salt, row.inviteTokenHash])
        expect(text).not.toContain(secret);
      expect(text).not.toMatch(/wrapped_access_key|invite_salt|token/);
    }
  });
});

describe("emergency access: step-up (D3 sensitive operations)", () => {
  it("adding a contact and responding need a sign-in within 300 s from an unregistered device", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await requested(owner, friend);
    const stale = await signedInAgain(owner, { authAge: 400 });
    for (const [path, body] of [
      [
        "/api/vault/emergency",
        { email: "x@example.test", wait_hours: 2, wrapped_access_key: "k", invite_salt: "s" },
      ],
      ["/api/vault/emergency/respond", { contact_id: contact.id, action: "approve" }],
    ] as const) {
      const res = await stale.call("POST", path, { body });
      const err = await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
      expect(err.maxAge).toBe(300);
      expect(res.headers.get("www-authenticate")).toContain("max_age=300");
    }
    expect((await contactRow(contact.id))!.status).toBe("access_requested");
    const recent = new TestUser(
      await signToken({ sub: owner.id, email: owner.email, authAge: 200 }),
      owner.id,
      owner.email,
    );
    expect(
      (
        await recent.call("POST", "/api/vault/emergency/respond", {
          body: { contact_id: contact.id, action: "deny" },
        })
      ).status,
    ).toBe(200);
  });

  it("from a trusted device the sensitive rule adds no age limit, while the switch's 90 s still holds", async () => {
    const owner = await TestUser.create();
    const { device, fingerprint: fp } = await register(owner);
    expect(device.trust_level).toBe("trusted");
    const stale = await signedInAgain(owner, { authAge: 400 });
    const headers = { "x-device-fingerprint": fp };
    const res = await stale.call("POST", "/api/vault/emergency", {
      body: inviteBody("trusted-path@example.test"),
      headers,
    });
    expect(res.status).toBe(201);
    await expectErrorBody(
      await stale.call("POST", "/api/dead-man-switch", { body: {}, headers }),
      401,
      "STEP_UP_REQUIRED",
    );
  });
});
