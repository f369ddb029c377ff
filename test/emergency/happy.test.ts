import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { accepted, invite, inviteTokenFor, requested, type Contact } from "../support/emergency";
import {
  alarmAt,
  auditOf,
  contactRow,
  emergencyTimer,
  fireAlarm,
  HOUR,
  iso,
  notificationsOf,
  outbox,
  setContact,
} from "../support/recovery";
import { sha256Hex } from "../../src/lib/crypto";

const CONTACT_KEYS = [
  "contact_email",
  "contact_user_id",
  "created_at",
  "expires_at",
  "grant_at",
  "granted_at",
  "id",
  "owner_email",
  "owner_id",
  "requested_at",
  "status",
  "wait_hours",
];

const access = (u: TestUser, id: string) =>
  u.call("GET", `/api/vault/emergency/access?contact_id=${encodeURIComponent(id)}`);
const contactOf = async (res: Response) => ((await res.json()) as { contact: Contact }).contact;

describe("emergency access: invitation and acceptance", () => {
  it("invites with a mailed /emergency/<token> link valid 7 days; only the token's hash is stored", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await invite(owner, friend, { wait_hours: 12 });
    expect(Object.keys(contact).sort()).toEqual(CONTACT_KEYS);
    expect(contact).toMatchObject({
      owner_id: owner.id,
      contact_email: friend.email,
      contact_user_id: null,
      status: "pending_invite",
      wait_hours: 12,
      requested_at: null,
      grant_at: null,
    });

    const mails = await outbox(friend.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].textBody).toContain("https://app.test/emergency/");
    const token = await inviteTokenFor(friend.email);
    const row = (await contactRow(contact.id))!;
    expect(row.inviteTokenHash).toBe(await sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(Date.parse(row.inviteExpiresAt) - Date.parse(row.createdAt)).toBe(7 * 24 * HOUR);
    expect(await auditOf(owner.id, "emergency_contact.add")).toMatchObject([
      { details: { email: friend.email, wait_hours: 12 } },
    ]);
  });

  it("accepting makes the record active and binds the contact; both sides list it", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await invite(owner, friend);
    const res = await friend.call("POST", "/api/vault/emergency/accept", {
      body: { token: await inviteTokenFor(friend.email) },
    });
    expect(res.status).toBe(200);
    expect(await contactOf(res)).toMatchObject({
      id: contact.id,
      status: "active",
      contact_user_id: friend.id,
    });
    expect(await auditOf(friend.id, "emergency_contact.accept")).toMatchObject([
      { details: { owner_id: owner.id } },
    ]);
    expect(await notificationsOf(owner.id, "emergency_contact_accepted")).toHaveLength(1);

    const ownerList = (await (await owner.call("GET", "/api/vault/emergency")).json()) as {
      as_owner: Contact[];
      as_contact: Contact[];
    };
    expect(ownerList.as_owner.map((c) => c.id)).toEqual([contact.id]);
    expect(ownerList.as_contact).toEqual([]);
    const friendList = (await (await friend.call("GET", "/api/vault/emergency")).json()) as {
      as_owner: Contact[];
      as_contact: Contact[];
    };
    expect(friendList.as_contact.map((c) => [c.id, c.status])).toEqual([[contact.id, "active"]]);
    // The contact's page names the owner by address, not only by id.
    expect(friendList.as_contact[0]).toMatchObject({
      owner_id: owner.id,
      owner_email: owner.email.toLowerCase(),
    });
    expect(friendList.as_owner).toEqual([]);
  });
});

describe("emergency access: request, response and the timers", () => {
  it("a request sets grant_at = now + wait_hours, notifies the owner and arms the timer", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await requested(owner, friend, { wait_hours: 5 });
    expect(contact.status).toBe("access_requested");
    expect(Date.parse(contact.grant_at!) - Date.parse(contact.requested_at!)).toBe(5 * HOUR);
    const notes = await notificationsOf(owner.id, "emergency_access_requested");
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ actorId: friend.id, actorEmail: friend.email });
    expect((await outbox(owner.email)).map((m) => m.kind)).toEqual(["emergency.requested"]);
    expect(await alarmAt(emergencyTimer(contact.id))).toBe(Date.parse(contact.grant_at!));
    expect(await auditOf(friend.id, "emergency_access.request")).toMatchObject([
      { details: { owner_id: owner.id, wait_hours: 5, grant_at: contact.grant_at } },
    ]);
    const before = await access(friend, contact.id);
    expect(before.status).toBe(403);
  });

  it("approval grants a 24-hour window in which only the contact gets the key", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact, body } = await requested(owner, friend);
    const res = await owner.call("POST", "/api/vault/emergency/respond", {
      body: { contact_id: contact.id, action: "approve" },
    });
    expect(res.status).toBe(200);
    const granted = await contactOf(res);
    expect(granted.status).toBe("access_granted");
    expect(Date.parse(granted.expires_at!) - Date.parse(granted.granted_at!)).toBe(24 * HOUR);
    expect(await alarmAt(emergencyTimer(contact.id))).toBe(Date.parse(granted.expires_at!));
    expect(await notificationsOf(friend.id, "emergency_access_granted")).toHaveLength(1);

    const got = await access(friend, contact.id);
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual({
      wrapped_access_key: body.wrapped_access_key,
      invite_salt: body.invite_salt,
    });
    expect(await auditOf(owner.id, "emergency_access.approve")).toMatchObject([
      { details: { contact_id: contact.id, email: friend.email } },
    ]);
    expect(await auditOf(friend.id, "emergency_access.retrieve_key")).toMatchObject([
      { details: { owner_id: owner.id } },
    ]);
  });

  it("denial ends the request and disarms the timer", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await requested(owner, friend);
    const res = await owner.call("POST", "/api/vault/emergency/respond", {
      body: { contact_id: contact.id, action: "deny" },
    });
    expect((await contactOf(res)).status).toBe("access_denied");
    expect(await alarmAt(emergencyTimer(contact.id))).toBeNull();
    expect((await access(friend, contact.id)).status).toBe(403);
    expect(await notificationsOf(friend.id, "emergency_access_denied")).toHaveLength(1);
    expect(await auditOf(owner.id, "emergency_access.deny")).toMatchObject([
      { details: { contact_id: contact.id, email: friend.email } },
    ]);
  });

  it("grants automatically when grant_at passes, then expires after 24 hours (alarms)", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await requested(owner, friend, { wait_hours: 72 });
    await fireAlarm(emergencyTimer(contact.id));
    expect((await contactRow(contact.id))!.status).toBe("access_requested");

    await setContact(contact.id, { grantAt: iso(Date.now() - 1000) });
    expect(await fireAlarm(emergencyTimer(contact.id))).toBe(true);
    const granted = (await contactRow(contact.id))!;
    expect(granted.status).toBe("access_granted");
    expect(Date.parse(granted.expiresAt!) - Date.parse(granted.grantedAt!)).toBe(24 * HOUR);
    expect(await alarmAt(emergencyTimer(contact.id))).toBe(Date.parse(granted.expiresAt!));
    expect(await notificationsOf(owner.id, "emergency_access_granted")).toHaveLength(1);
    expect((await outbox(friend.email)).map((m) => m.kind)).toContain("emergency.granted");
    expect((await access(friend, contact.id)).status).toBe(200);

    await setContact(contact.id, { expiresAt: iso(Date.now() - 1000) });
    await fireAlarm(emergencyTimer(contact.id));
    expect((await contactRow(contact.id))!.status).toBe("access_expired");
    expect(await alarmAt(emergencyTimer(contact.id))).toBeNull();
    expect((await access(friend, contact.id)).status).toBe(410);
  });

  it("the key endpoint itself honours a grant_at or expiry whose alarm has not run yet", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await requested(owner, friend);
    await setContact(contact.id, { grantAt: iso(Date.now() - 1000) });
    expect((await access(friend, contact.id)).status).toBe(200);
    await setContact(contact.id, { expiresAt: iso(Date.now() - 1000) });
    expect((await access(friend, contact.id)).status).toBe(410);
    expect((await contactRow(contact.id))!.status).toBe("access_expired");
  });

  it("changing wait_hours keeps a request's grant_at and applies to later requests", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await requested(owner, friend, { wait_hours: 10 });
    const res = await owner.call("PATCH", `/api/vault/emergency/${contact.id}`, {
      body: { wait_hours: 100 },
    });
    expect(res.status).toBe(200);
    const updated = await contactOf(res);
    expect(updated).toMatchObject({
      wait_hours: 100,
      grant_at: contact.grant_at,
      status: "access_requested",
    });
    expect(await auditOf(owner.id, "emergency_contact.update")).toMatchObject([
      { details: { wait_hours: 100 } },
    ]);

    const later = await TestUser.create();
    const second = await accepted(owner, later, { wait_hours: 1 });
    await owner.call("PATCH", `/api/vault/emergency/${second.contact.id}`, {
      body: { wait_hours: 30 },
    });
    const req = await contactOf(
      await later.call("POST", "/api/vault/emergency/request", {
        body: { contact_id: second.contact.id },
      }),
    );
    expect(Date.parse(req.grant_at!) - Date.parse(req.requested_at!)).toBe(30 * HOUR);
  });

  it("revocation is terminal: no access, no request, no acceptance, no timer", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await requested(owner, friend);
    const res = await owner.call("DELETE", `/api/vault/emergency/${contact.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect((await contactRow(contact.id))!.status).toBe("revoked");
    expect(await alarmAt(emergencyTimer(contact.id))).toBeNull();
    expect((await access(friend, contact.id)).status).toBe(403);
    expect(
      (
        await friend.call("POST", "/api/vault/emergency/request", {
          body: { contact_id: contact.id },
        })
      ).status,
    ).toBe(409);
    expect(await auditOf(owner.id, "emergency_contact.revoke")).toHaveLength(1);

    const pending = await TestUser.create();
    await invite(owner, pending);
    const token = await inviteTokenFor(pending.email);
    const list = (await (await owner.call("GET", "/api/vault/emergency")).json()) as {
      as_owner: Contact[];
    };
    const pendingId = list.as_owner.find((c) => c.contact_email === pending.email)!.id;
    await owner.call("DELETE", `/api/vault/emergency/${pendingId}`);
    expect(
      (await pending.call("POST", "/api/vault/emergency/accept", { body: { token } })).status,
    ).toBe(404);
    expect((await invite(owner, pending)).contact.status).toBe("pending_invite");
  });
});
