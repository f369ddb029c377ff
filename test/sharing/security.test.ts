import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, signToken, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { createShare, invite, listShares, sharedPair } from "../support/sharing";

describe("entry shares: owner-only and recipient-only rules", () => {
  it("a third user gets 404 on PATCH, DELETE, view and account update, and sees nothing", async () => {
    const { share, entry } = await sharedPair({ permission: "write" });
    const stranger = await TestUser.create();
    await expectErrorBody(
      await stranger.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "revoked" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await stranger.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await stranger.call("DELETE", `/api/sharing/${share.id}`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await stranger.call("POST", `/api/sharing/${share.id}/view`, {
        body: { action: "password_viewed" },
        csrf: false,
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await stranger.call("PATCH", `/api/sharing/${share.id}/account`, { body: { name: "x" } }),
      404,
      "NOT_FOUND",
    );
    expect((await listShares(stranger, "received")).shares).toEqual([]);
    expect((await listShares(stranger, "owned")).shares).toEqual([]);
    const row = await env.DB.prepare("SELECT status FROM shares WHERE id = ?")
      .bind(share.id)
      .first();
    expect(row?.status).toBe("active");
    const e = await env.DB.prepare("SELECT name FROM passwords WHERE id = ?")
      .bind(entry.id)
      .first();
    expect(e?.name).toBe("Bank");
  });

  it("only the owner deletes: the recipient gets 404 and the share stays", async () => {
    const { recipient, share } = await sharedPair();
    await expectErrorBody(
      await recipient.call("DELETE", `/api/sharing/${share.id}`),
      404,
      "NOT_FOUND",
    );
    expect((await listShares(recipient, "received")).shares).toHaveLength(1);
  });

  it("only the recipient logs views: the owner gets 404", async () => {
    const { owner, share } = await sharedPair();
    await expectErrorBody(
      await owner.call("POST", `/api/sharing/${share.id}/view`, {
        body: { action: "password_viewed" },
        csrf: false,
      }),
      404,
      "NOT_FOUND",
    );
    const n = await env.DB.prepare("SELECT count(*) AS n FROM notifications WHERE user_id = ?")
      .bind(owner.id)
      .first<{ n: number }>();
    expect(n?.n).toBe(0);
  });

  it("accept binds only the user whose token email matches; another user cannot take the share", async () => {
    const { share, recipient } = await sharedPair({ accept: false });
    const impostor = await TestUser.create();
    await expectErrorBody(
      await impostor.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }),
      404,
      "NOT_FOUND",
    );
    const noEmailId = crypto.randomUUID();
    const noEmail = new TestUser(await signToken({ sub: noEmailId }), noEmailId, "");
    await expectErrorBody(
      await noEmail.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }),
      404,
      "NOT_FOUND",
    );
    const res = await recipient.call("PATCH", `/api/sharing/${share.id}`, {
      body: { status: "active" },
    });
    expect(res.status).toBe(200);
    // A second account with the same email cannot take over a share already bound to someone.
    const twin = await TestUser.create({ email: recipient.email });
    await expectErrorBody(
      await twin.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }),
      404,
      "NOT_FOUND",
    );
    expect((await listShares(twin, "received")).shares).toEqual([]);
  });

  it("a pending share gives no ciphertext, no view log and no write", async () => {
    const { recipient, share, entry } = await sharedPair({ accept: false, permission: "write" });
    const list = await listShares(recipient, "received");
    expect(JSON.stringify(list)).not.toContain(entry.body.encrypted_data);
    await expectErrorBody(
      await recipient.call("POST", `/api/sharing/${share.id}/view`, {
        body: { action: "password_viewed" },
        csrf: false,
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await recipient.call("PATCH", `/api/sharing/${share.id}/account`, { body: { name: "x" } }),
      404,
      "NOT_FOUND",
    );
  });

  it("revocation ends access at once: no listing, no view log, no write", async () => {
    const { owner, recipient, share, entry } = await sharedPair({ permission: "write" });
    await owner.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "revoked" } });
    expect((await listShares(recipient, "received")).shares).toEqual([]);
    await expectErrorBody(
      await recipient.call("POST", `/api/sharing/${share.id}/view`, {
        body: { action: "password_viewed" },
        csrf: false,
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await recipient.call("PATCH", `/api/sharing/${share.id}/account`, {
        body: { encrypted_data: invite() },
      }),
      404,
      "NOT_FOUND",
    );
    const e = await env.DB.prepare("SELECT encrypted_data FROM passwords WHERE id = ?")
      .bind(entry.id)
      .first();
    expect(e?.encrypted_data).toBe(entry.body.encrypted_data);
  });

  it("an expired share gives no access and cannot be accepted", async () => {
    const { owner, recipient, share } = await sharedPair({ permission: "write" });
    const past = new Date(Date.now() - 1000).toISOString();
    await env.DB.prepare("UPDATE shares SET expires_at = ? WHERE id = ?")
      .bind(past, share.id)
      .run();
    expect((await listShares(recipient, "received")).shares).toEqual([]);
    await expectErrorBody(
      await recipient.call("POST", `/api/sharing/${share.id}/view`, {
        body: { action: "password_copied" },
        csrf: false,
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await recipient.call("PATCH", `/api/sharing/${share.id}/account`, { body: { name: "late" } }),
      404,
      "NOT_FOUND",
    );

    const pending = await createShare(owner, {
      accountId: (await createEntry(owner)).id,
      recipientEmail: recipient.email,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    await env.DB.prepare("UPDATE shares SET expires_at = ? WHERE id = ?")
      .bind(past, pending.id)
      .run();
    await expectErrorBody(
      await recipient.call("PATCH", `/api/sharing/${pending.id}`, { body: { status: "active" } }),
      404,
      "NOT_FOUND",
    );
  });

  it("a deleted entry's shares give no access", async () => {
    const { owner, recipient, entry } = await sharedPair();
    await owner.call("DELETE", `/api/passwords/${entry.id}`);
    expect((await listShares(recipient, "received")).shares).toEqual([]);
  });

  it("a write recipient cannot change the wrapped item key or the owner of the entry", async () => {
    const { recipient, share, entry, owner } = await sharedPair({ permission: "write" });
    const res = await recipient.call("PATCH", `/api/sharing/${share.id}/account`, {
      body: { name: "ok", wrapped_item_key: invite(), user_id: recipient.id },
    });
    expect(res.status).toBe(200);
    const row = await env.DB.prepare(
      "SELECT user_id, wrapped_item_key, name FROM passwords WHERE id = ?",
    )
      .bind(entry.id)
      .first();
    expect(row).toEqual({
      user_id: owner.id,
      wrapped_item_key: entry.body.wrapped_item_key,
      name: "ok",
    });
  });

  it("create needs a recent sign-in (step-up 300 s) and a CSRF token", async () => {
    const owner = await TestUser.create({ authAge: 301 });
    const entry = await createEntry(owner);
    const res = await owner.call("POST", "/api/sharing", {
      body: { accountId: entry.id, recipientEmail: "x@example.test" },
    });
    expect(res.headers.get("www-authenticate")).toContain("insufficient_user_authentication");
    await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
    const fresh = await TestUser.create();
    const e2 = await createEntry(fresh);
    await expectErrorBody(
      await fresh.call("POST", "/api/sharing", {
        body: { accountId: e2.id, recipientEmail: "x@example.test" },
        csrf: false,
      }),
      403,
      "FORBIDDEN",
    );
  });

  it("cannot share another user's entry", async () => {
    const victim = await TestUser.create();
    const thief = await TestUser.create();
    const entry = await createEntry(victim);
    await expectErrorBody(
      await thief.call("POST", "/api/sharing", {
        body: { accountId: entry.id, recipientEmail: thief.email.replace("@", "+x@") },
      }),
      404,
      "NOT_FOUND",
    );
  });

  it("the view log needs no CSRF token but still needs the recipient's authentication", async () => {
    const { share } = await sharedPair();
    const { SELF } = await import("../support/worker");
    const res = await SELF.fetch(`https://vault.test/api/sharing/${share.id}/view`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ action: "password_viewed" }),
    });
    await expectErrorBody(res, 401, "UNAUTHORIZED");
  });

  it("create is limited to 20 a minute per user", async () => {
    const owner = await TestUser.create();
    const entries = [];
    for (let i = 0; i < 3; i++) entries.push(await createEntry(owner));
    let limited: Response | undefined;
    for (let i = 0; i < 21; i++) {
      const res = await owner.call("POST", "/api/sharing", {
        body: { accountId: entries[i % 3].id, recipientEmail: `q${i}@example.test` },
      });
      if (res.status === 429) {
        limited = res;
        break;
      }
      expect(res.status).toBe(201);
    }
    expect(limited).toBeDefined();
    expect(limited!.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
