import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { liveSyncHub } from "../../durable-objects/live-sync-hub";
import { parseLiveSyncMessage } from "../../src/kernel/live-sync";
import { TestUser } from "../support/auth";
import { accepted, invite, inviteTokenFor, requested } from "../support/emergency";
import { Live } from "../support/live-sync";
import { createShare, invite as wrappedInvite, sharedPair } from "../support/sharing";
import { createEntry } from "../support/fixtures";

// Live sync's topic notices: what a delta pull does not carry (shares, emergency records) is
// announced to the devices of the users whose view changed, after the change committed, with the
// topic only.

/**
 * Waits until the notices already on their way (sent after the response, through waitUntil) have
 * arrived: a marker sent to the hub now reaches the connection after any notice sent before it.
 */
async function settle(...pairs: [TestUser, Live][]) {
  for (const [user, live] of pairs) {
    const before = live.changes().length;
    await liveSyncHub(env.LIVE_SYNC, user.id).notify(Date.now() + 60_000);
    await live.until(() => live.changes().length > before);
  }
}

describe("live sync: the shares topic", () => {
  it("accepting a share tells the owner's and the recipient's devices, with no share content", async () => {
    const { owner, recipient, share } = await sharedPair({ accept: false });
    const o = await Live.open(owner);
    const r = await Live.open(recipient);
    const res = await recipient.call("PATCH", `/api/sharing/${share.id}`, {
      body: { status: "active" },
    });
    expect(res.status).toBe(200);
    await o.until(() => o.topics().length > 0);
    await r.until(() => r.topics().length > 0);
    expect(o.topics()).toEqual(["shares"]);
    expect(r.topics()).toEqual(["shares"]);
    const text = JSON.stringify([...o.messages, ...r.messages]);
    for (const secret of [share.id, share.account_id, recipient.email, "Bank"])
      expect(text).not.toContain(secret);
    o.ws.close(1000);
    r.ws.close(1000);
  });

  it("revoking, changing and deleting a share tell both sides; another user hears nothing", async () => {
    const { owner, recipient, share } = await sharedPair();
    const stranger = await TestUser.create();
    const o = await Live.open(owner);
    const r = await Live.open(recipient);
    const s = await Live.open(stranger);
    expect(
      (await owner.call("PATCH", `/api/sharing/${share.id}`, { body: { permission: "write" } }))
        .status,
    ).toBe(200);
    await r.until(() => r.topics().length >= 1);
    expect(
      (await owner.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "revoked" } }))
        .status,
    ).toBe(200);
    await r.until(() => r.topics().length >= 2);
    expect((await owner.call("DELETE", `/api/sharing/${share.id}`)).status).toBe(200);
    await r.until(() => r.topics().length >= 3);
    await o.until(() => o.topics().length >= 3);
    expect(r.topics()).toEqual(["shares", "shares", "shares"]);
    await settle([stranger, s]);
    expect(s.topics()).toEqual([]);
    for (const l of [o, r, s]) l.ws.close(1000);
  });

  it("a refused change tells no one", async () => {
    const { owner, recipient, share } = await sharedPair();
    const o = await Live.open(owner);
    const r = await Live.open(recipient);
    // Only the owner may revoke; the recipient's try is refused and changes nothing.
    expect(
      (await recipient.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "revoked" } }))
        .status,
    ).toBe(403);
    // A stranger's try at another's share is not found.
    expect(
      (await (await TestUser.create()).call("DELETE", `/api/sharing/${share.id}`)).status,
    ).toBe(404);
    await settle([owner, o], [recipient, r]);
    expect(o.topics()).toEqual([]);
    expect(r.topics()).toEqual([]);
    o.ws.close(1000);
    r.ws.close(1000);
  });

  it("a new share reaches the recipient who published a sharing key for the address", async () => {
    const owner = await TestUser.create();
    const recipient = await TestUser.create();
    const key = {
      kty: "EC",
      crv: "P-256",
      x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
      y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
    };
    expect(
      (await recipient.call("PUT", "/api/sharing/public-key", { body: { publicKey: key } })).status,
    ).toBe(200);
    const r = await Live.open(recipient);
    const entry = await createEntry(owner, { name: "Wifi", website: "wifi.test" });
    await createShare(owner, {
      accountId: entry.id,
      recipientEmail: recipient.email,
      permission: "read",
      wrapped_vault_key_invite: wrappedInvite(),
      invite_token_salt: "salt-2",
    });
    await r.until(() => r.topics().length > 0);
    expect(r.topics()).toEqual(["shares"]);
    r.ws.close(1000);
  });
});

describe("live sync: the emergency topic", () => {
  it("accepting, asking and the grant each tell the owner and the contact", async () => {
    const owner = await TestUser.create();
    const contact = await TestUser.create();
    const o = await Live.open(owner);
    const c = await Live.open(contact);
    const { contact: record } = await invite(owner, contact);
    expect(
      (
        await contact.call("POST", "/api/vault/emergency/accept", {
          body: { token: await inviteTokenFor(contact.email) },
        })
      ).status,
    ).toBe(200);
    await o.until(() => o.topics().length >= 1);
    await c.until(() => c.topics().length >= 1);
    expect(
      (
        await contact.call("POST", "/api/vault/emergency/request", {
          body: { contact_id: record.id },
        })
      ).status,
    ).toBe(200);
    await o.until(() => o.topics().length >= 2);
    await c.until(() => c.topics().length >= 2);
    expect(
      (
        await owner.call("POST", "/api/vault/emergency/respond", {
          body: { contact_id: record.id, action: "approve" },
        })
      ).status,
    ).toBe(200);
    await o.until(() => o.topics().length >= 3);
    await c.until(() => c.topics().length >= 3);
    expect(o.topics()).toEqual(["emergency", "emergency", "emergency"]);
    expect(c.topics()).toEqual(["emergency", "emergency", "emergency"]);
    expect(JSON.stringify(c.messages)).not.toContain(record.id);
    o.ws.close(1000);
    c.ws.close(1000);
  });

  it("revoking tells the contact; a refused answer tells no one", async () => {
    const owner = await TestUser.create();
    const contact = await TestUser.create();
    const { contact: record } = await accepted(owner, contact);
    const o = await Live.open(owner);
    const c = await Live.open(contact);
    // Nothing was asked: approving is refused (409) and tells no one.
    expect(
      (
        await owner.call("POST", "/api/vault/emergency/respond", {
          body: { contact_id: record.id, action: "approve" },
        })
      ).status,
    ).toBe(409);
    await settle([owner, o], [contact, c]);
    expect(c.topics()).toEqual([]);
    expect((await owner.call("DELETE", `/api/vault/emergency/${record.id}`)).status).toBe(200);
    await c.until(() => c.topics().length >= 1);
    expect(c.topics()).toEqual(["emergency"]);
    o.ws.close(1000);
    c.ws.close(1000);
  });

  it("a denied request tells the contact", async () => {
    const owner = await TestUser.create();
    const contact = await TestUser.create();
    const { contact: record } = await requested(owner, contact);
    const c = await Live.open(contact);
    expect(
      (
        await owner.call("POST", "/api/vault/emergency/respond", {
          body: { contact_id: record.id, action: "deny" },
        })
      ).status,
    ).toBe(200);
    await c.until(() => c.topics().length >= 1);
    expect(c.topics()).toEqual(["emergency"]);
    c.ws.close(1000);
  });
});

describe("live sync: topic messages", () => {
  it("parse only for a known topic", () => {
    expect(parseLiveSyncMessage(JSON.stringify({ type: "topic", topic: "shares" }))).toEqual({
      type: "topic",
      topic: "shares",
    });
    expect(parseLiveSyncMessage(JSON.stringify({ type: "topic", topic: "emergency" }))).toEqual({
      type: "topic",
      topic: "emergency",
    });
    expect(parseLiveSyncMessage(JSON.stringify({ type: "topic", topic: "entries" }))).toBeNull();
    expect(parseLiveSyncMessage(JSON.stringify({ type: "topic" }))).toBeNull();
  });
});
