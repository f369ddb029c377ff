import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { invite as inviteContact } from "../support/emergency";
import { createEntry } from "../support/fixtures";
import { browserSubscription, subscribe } from "../support/push";
import { notificationsOf } from "../support/recovery";
import { createShare, invite as wrappedInvite } from "../support/sharing";

// Someone waits for the person's answer: a share and an emergency invitation are announced to the
// account that reads the address (the one holding its sharing key), with the action that leads to
// Accept, and pushed where that account subscribed.

async function withSharingKey(user: TestUser) {
  const jwk = (await crypto.subtle.exportKey(
    "jwk",
    (
      (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
        "deriveBits",
      ])) as CryptoKeyPair
    ).publicKey,
  )) as JsonWebKey;
  const put = await user.call("PUT", "/api/sharing/public-key", {
    body: { publicKey: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } },
  });
  expect(put.status).toBe(200);
  return user;
}

const until = async <T>(f: () => Promise<T>, ok: (v: T) => boolean) => {
  for (let i = 0; i < 50; i++) {
    const v = await f();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  return f();
};

describe("invitations and shares announced", () => {
  it("a share tells its recipient, with the Sharing page's Accept as its action, and is pushed", async () => {
    const owner = await TestUser.create();
    const recipient = await withSharingKey(await TestUser.create());
    const sub = await browserSubscription();
    expect((await subscribe(recipient, sub.json)).status).toBe(201);
    const entry = await createEntry(owner, { name: "Team wiki", website: "wiki.test" });
    const share = await createShare(owner, {
      accountId: entry.id,
      recipientEmail: recipient.email,
      permission: "write",
      wrapped_vault_key_invite: wrappedInvite(),
    });
    const [notice, ...more] = await notificationsOf(recipient.id, "share_received");
    expect(more).toEqual([]);
    expect(notice).toMatchObject({
      title: "An entry was shared with you",
      body: `${owner.email} shared "Team wiki" with you (can edit). Accept it on the Sharing page to see it in your vault.`,
      actionUrl: `/sharing?share=${share.id}`,
      actorEmail: owner.email,
      isRead: false,
      metadata: { share_id: share.id, account_id: entry.id },
    });
    // Nothing of the entry's secrets: its name is plaintext on the server already.
    const got = await until(sub.received, (r) => r.length > 0);
    expect(got[0]!.payload).toEqual({
      type: "share_received",
      title: "An entry was shared with you",
      body: expect.stringContaining('"Team wiki"'),
      url: `/sharing?share=${share.id}`,
    });
    expect(await notificationsOf(owner.id, "share_received")).toEqual([]);
  });

  it("an emergency invitation tells the invitee in the app, with Emergency access's Accept as its action", async () => {
    const owner = await TestUser.create();
    const invitee = await withSharingKey(await TestUser.create());
    const { contact } = await inviteContact(owner, invitee, { wait_hours: 12 });
    const [notice, ...more] = await notificationsOf(invitee.id, "emergency_contact_invited");
    expect(more).toEqual([]);
    expect(notice).toMatchObject({
      title: "You were named an emergency contact",
      body: `${owner.email} named you as an emergency contact for their vault, with a waiting period of 12 hours. Accept the invitation on the Emergency access page.`,
      actionUrl: `/emergency?invitation=${contact.id}`,
      actorId: owner.id,
      metadata: { contact_id: contact.id },
    });
  });

  it("an address nobody reads yet gets the mail only; the invitation and the share stand", async () => {
    const owner = await TestUser.create();
    const stranger = await TestUser.create();
    const { contact } = await inviteContact(owner, stranger);
    expect(contact.status).toBe("pending_invite");
    const entry = await createEntry(owner, { name: "Mail" });
    const share = await createShare(owner, {
      accountId: entry.id,
      recipientEmail: stranger.email,
      wrapped_vault_key_invite: wrappedInvite(),
    });
    expect(share.status).toBe("pending");
    expect(await notificationsOf(stranger.id)).toEqual([]);
  });
});
