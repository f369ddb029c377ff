import { pull } from "../sync/helpers";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { createShare, invite, listShares, sharedPair } from "../support/sharing";

const shareCount = async (id: string) =>
  (
    await env.DB.prepare("SELECT share_count AS n FROM passwords WHERE id = ?")
      .bind(id)
      .first<{ n: number }>()
  )?.n;

describe("entry shares: the whole life of a share between two users", () => {
  it("create is pending, the recipient accepts by email, gets the ciphertext, the owner revokes and deletes", async () => {
    const owner = await TestUser.create();
    const recipient = await TestUser.create({
      email: `Mixed.${crypto.randomUUID().slice(0, 6)}@Example.test`,
    });
    const entry = await createEntry(owner, { name: "Mail", website: "mail.test" });
    const wrapped = invite();
    const share = await createShare(owner, {
      accountId: entry.id,
      recipientEmail: recipient.email.toUpperCase(),
      wrapped_vault_key_invite: wrapped,
      invite_token_salt: "s",
    });
    expect(share).toMatchObject({
      account_id: entry.id,
      owner_id: owner.id,
      recipient_id: null,
      status: "pending",
      permission: "read",
      accepted_at: null,
    });
    expect(share.recipient_email).toBe(recipient.email.toLowerCase());
    expect(await shareCount(entry.id)).toBe(1);

    const pending = await listShares(recipient, "received");
    expect(pending.shares.map((s) => s.id)).toEqual([share.id]);
    expect(pending.shares[0].account?.encrypted_data).toBeUndefined();

    const accept = await recipient.call("PATCH", `/api/sharing/${share.id}`, {
      body: { status: "active" },
    });
    expect(accept.status).toBe(200);
    const accepted = (await accept.json()) as {
      success: boolean;
      share: { status: string; recipient_id: string; accepted_at: string };
    };
    expect(accepted.success).toBe(true);
    expect(accepted.share.status).toBe("active");
    expect(accepted.share.recipient_id).toBe(recipient.id);
    expect(Date.parse(accepted.share.accepted_at)).toBeGreaterThan(Date.now() - 60_000);

    const received = await listShares(recipient, "received");
    expect(received.shares[0].account).toEqual({
      id: entry.id,
      name: "Mail",
      website: "mail.test",
      url: null,
      encrypted_data: entry.body.encrypted_data,
      wrapped_item_key: wrapped,
    });
    expect(received.shares[0].invite_token_salt).toBe("s");

    const owned = await listShares(owner, "owned");
    expect(owned.shares).toHaveLength(1);
    expect(owned.shares[0].status).toBe("active");
    expect(owned.shares[0].account).toEqual({
      id: entry.id,
      name: "Mail",
      website: "mail.test",
      url: null,
    });
    expect(JSON.stringify(owned)).not.toContain(entry.body.encrypted_data);
    expect(JSON.stringify(owned)).not.toContain(wrapped);

    const revoke = await owner.call("PATCH", `/api/sharing/${share.id}`, {
      body: { status: "revoked" },
    });
    expect(revoke.status).toBe(200);
    expect(((await revoke.json()) as { share: { status: string } }).share.status).toBe("revoked");
    expect(await shareCount(entry.id)).toBe(0);
    expect((await listShares(recipient, "received")).shares).toEqual([]);

    const del = await owner.call("DELETE", `/api/sharing/${share.id}`);
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ success: true });
    expect((await listShares(owner, "owned")).shares).toEqual([]);
  });

  it("permission change by the owner takes effect for the recipient at once", async () => {
    const { owner, recipient, share } = await sharedPair({ permission: "read" });
    const up = await recipient.call("PATCH", `/api/sharing/${share.id}/account`, {
      body: { name: "Renamed" },
    });
    expect(up.status).toBe(403);
    const res = await owner.call("PATCH", `/api/sharing/${share.id}`, {
      body: { permission: "write" },
    });
    expect(res.status).toBe(200);
    expect(
      ((await res.json()) as { share: { permission: string; status: string } }).share,
    ).toMatchObject({ permission: "write", status: "active" });
    const up2 = await recipient.call("PATCH", `/api/sharing/${share.id}/account`, {
      body: { name: "Renamed" },
    });
    expect(up2.status).toBe(200);
  });

  it("a write recipient updates the owner's entry; the owner sees the new ciphertext", async () => {
    const { owner, recipient, share, entry } = await sharedPair({ permission: "write" });
    const newData = invite();
    const res = await recipient.call("PATCH", `/api/sharing/${share.id}/account`, {
      body: { encrypted_data: newData, url: "https://bank.test/login" },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { account: { id: string } }).account.id).toBe(entry.id);
    const list = (await (await owner.call("GET", "/api/passwords")).json()) as {
      data: { id: string; encrypted_data: string; url: string; user_id: string }[];
    };
    const mine = list.data.find((e) => e.id === entry.id)!;
    expect(mine).toMatchObject({
      encrypted_data: newData,
      url: "https://bank.test/login",
      user_id: owner.id,
    });
    const received = await listShares(recipient, "received");
    expect(received.shares[0].account?.encrypted_data).toBe(newData);
  });

  it("a write recipient's edit reaches the owner's delta sync", async () => {
    const { owner, recipient, share, entry } = await sharedPair({ permission: "write" });
    const cursor = (await pull(owner)).serverTimestamp;
    const newData = invite();
    expect(
      (
        await recipient.call("PATCH", `/api/sharing/${share.id}/account`, {
          body: { encrypted_data: newData },
        })
      ).status,
    ).toBe(200);
    const delta = await pull(owner, cursor);
    expect(delta.changes.map((c) => c.id)).toEqual([entry.id]);
    expect(delta.changes[0]).toMatchObject({ encrypted_data: newData, _deleted: false });
  });

  it("the view log: password_viewed notifies the owner, password_copied does not", async () => {
    const { owner, recipient, share } = await sharedPair();
    const notes = () =>
      env.DB.prepare("SELECT type, actor_email, metadata FROM notifications WHERE user_id = ?")
        .bind(owner.id)
        .all<{ type: string; actor_email: string; metadata: string }>();
    const copied = await recipient.call("POST", `/api/sharing/${share.id}/view`, {
      body: { action: "password_copied" },
      csrf: false,
    });
    expect(copied.status).toBe(201);
    expect((await notes()).results).toEqual([]);
    const viewed = await recipient.call("POST", `/api/sharing/${share.id}/view`, {
      body: { action: "password_viewed" },
      csrf: false,
    });
    expect(viewed.status).toBe(201);
    expect(await viewed.json()).toMatchObject({ success: true, action: "password_viewed" });
    const rows = (await notes()).results;
    expect(rows).toHaveLength(1);
    expect(rows[0].type).toBe("share_viewed");
    expect(rows[0].actor_email).toBe(recipient.email);
    expect(JSON.parse(rows[0].metadata)).toMatchObject({
      share_id: share.id,
      action: "password_viewed",
    });
    const logs = await env.DB.prepare(
      "SELECT action, recipient_id FROM share_view_logs WHERE share_id = ? ORDER BY created_at",
    )
      .bind(share.id)
      .all();
    expect(logs.results.map((r) => r.action).sort()).toEqual([
      "password_copied",
      "password_viewed",
    ]);
    expect(logs.results.every((r) => r.recipient_id === recipient.id)).toBe(true);
  });

  it("filters by accountId, and share_count follows create, revoke and delete", async () => {
    const owner = await TestUser.create();
    const a = await createEntry(owner);
    const b = await createEntry(owner);
    const s1 = await createShare(owner, { accountId: a.id, recipientEmail: "one@example.test" });
    await createShare(owner, {
      accountId: a.id,
      recipientEmail: "two@example.test",
      permission: "write",
    });
    await createShare(owner, { accountId: b.id, recipientEmail: "one@example.test" });
    expect(await shareCount(a.id)).toBe(2);
    expect(await shareCount(b.id)).toBe(1);
    const onlyA = await listShares(owner, "owned", a.id);
    expect(onlyA.shares.map((s) => s.recipient_email).sort()).toEqual([
      "one@example.test",
      "two@example.test",
    ]);
    const entries = (await (await owner.call("GET", "/api/passwords")).json()) as {
      data: { id: string; share_count: number }[];
    };
    expect(entries.data.find((e) => e.id === a.id)?.share_count).toBe(2);
    await owner.call("DELETE", `/api/sharing/${s1.id}`);
    expect(await shareCount(a.id)).toBe(1);
  });

  it("setup_required until the caller registers a sharing public key; an owner can fetch a recipient's key by email", async () => {
    const user = await TestUser.create();
    const other = await TestUser.create();
    expect((await listShares(user, "owned")).setup_required).toBe(true);
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
    expect((await listShares(user, "owned")).setup_required).toBe(false);
    expect((await listShares(user, "received")).setup_required).toBe(false);
    const looked = await other.call(
      "GET",
      `/api/sharing/public-key?email=${encodeURIComponent(user.email.toUpperCase())}`,
    );
    expect(looked.status).toBe(200);
    expect(((await looked.json()) as { publicKey: { x: string } }).publicKey.x).toBe(jwk.x);
  });

  it("a recipient's listing names who shared each entry: the sharer's registered sharing email, or null without one", async () => {
    const { owner, recipient, share } = await sharedPair();
    expect(
      (await listShares(recipient, "received")).shares.find((s) => s.id === share.id)?.owner_email,
    ).toBeNull();
    const jwk = (await crypto.subtle.exportKey(
      "jwk",
      (
        (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
          "deriveBits",
        ])) as CryptoKeyPair
      ).publicKey,
    )) as JsonWebKey;
    expect(
      (
        await owner.call("PUT", "/api/sharing/public-key", {
          body: { publicKey: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } },
        })
      ).status,
    ).toBe(200);
    expect(
      (await listShares(recipient, "received")).shares.find((s) => s.id === share.id)?.owner_email,
    ).toBe(owner.email.toLowerCase());
    // The owner's own listing does not carry it (they are the owner).
    expect((await listShares(owner, "owned")).shares[0]).not.toHaveProperty("owner_email");
  });

  it("a revoked share can be replaced by a new share to the same email", async () => {
    const { owner, recipient, share, entry } = await sharedPair();
    await owner.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "revoked" } });
    const again = await createShare(owner, {
      accountId: entry.id,
      recipientEmail: recipient.email,
    });
    expect(again.status).toBe("pending");
    expect(await shareCount(entry.id)).toBe(1);
  });
});
