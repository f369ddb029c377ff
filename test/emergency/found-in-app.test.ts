import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { invite, inviteTokenFor, type Contact } from "../support/emergency";

type List = { as_owner: Contact[]; as_contact: Contact[] };
const list = async (u: TestUser) =>
  (await (await u.call("GET", "/api/vault/emergency")).json()) as List;

describe("emergency invitations found in the app (D21)", () => {
  it("an invitation to the caller's verified email is listed as pending_invite, without any token", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await invite(owner, friend);
    const seen = await list(friend);
    expect(seen.as_contact).toHaveLength(1);
    expect(seen.as_contact[0]).toMatchObject({
      id: contact.id,
      owner_id: owner.id,
      owner_email: owner.email,
      contact_email: friend.email,
      contact_user_id: null,
      status: "pending_invite",
    });
    const token = await inviteTokenFor(friend.email);
    expect(JSON.stringify(seen)).not.toContain(token);
    expect(Object.keys(seen.as_contact[0]!)).not.toContain("token");
    // Someone else sees nothing of it.
    const stranger = await TestUser.create();
    expect((await list(stranger)).as_contact).toEqual([]);
  });

  it("an unverified email does not find it (email_verified false)", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    await invite(owner, friend);
    const unverified = await friend.withToken({ emailVerified: false });
    expect((await list(unverified)).as_contact).toEqual([]);
  });

  it("POST accept takes {contact_id} from the invitee; the record is active and bound to them", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await invite(owner, friend);
    const res = await friend.call("POST", "/api/vault/emergency/accept", {
      body: { contact_id: contact.id },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { contact: Contact }).contact).toMatchObject({
      id: contact.id,
      status: "active",
      contact_user_id: friend.id,
    });
    expect((await list(friend)).as_contact[0]).toMatchObject({ id: contact.id, status: "active" });
    expect((await list(owner)).as_owner[0]).toMatchObject({
      id: contact.id,
      status: "active",
      contact_user_id: friend.id,
    });
    // Accepted once: again is 409, and the mailed link now says the same.
    await expectErrorBody(
      await friend.call("POST", "/api/vault/emergency/accept", {
        body: { contact_id: contact.id },
      }),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await friend.call("POST", "/api/vault/emergency/accept", {
        body: { token: await inviteTokenFor(friend.email) },
      }),
      409,
      "CONFLICT",
    );
  });

  it("another person's id is not found, and the owner cannot accept it; nothing changes", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const stranger = await TestUser.create();
    const { contact } = await invite(owner, friend);
    await expectErrorBody(
      await stranger.call("POST", "/api/vault/emergency/accept", {
        body: { contact_id: contact.id },
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await owner.call("POST", "/api/vault/emergency/accept", { body: { contact_id: contact.id } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await friend.call("POST", "/api/vault/emergency/accept", { body: {} }),
      400,
      "VALIDATION_ERROR",
    );
    expect((await list(owner)).as_owner[0]).toMatchObject({
      status: "pending_invite",
      contact_user_id: null,
    });
  });

  it("the mailed link keeps working", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    await invite(owner, friend);
    const res = await friend.call("POST", "/api/vault/emergency/accept", {
      body: { token: await inviteTokenFor(friend.email) },
    });
    expect(res.status).toBe(200);
  });

  it("an expired invitation is no longer listed, and accepting it by id is 410", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await invite(owner, friend);
    await env.DB.prepare("UPDATE emergency_contacts SET invite_expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), contact.id)
      .run();
    expect((await list(friend)).as_contact).toEqual([]);
    await expectErrorBody(
      await friend.call("POST", "/api/vault/emergency/accept", {
        body: { contact_id: contact.id },
      }),
      410,
      "GONE",
    );
  });
});
