import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { createShare, listShares, sharedPair } from "../support/sharing";

const countShares = async (ownerId: string) =>
  (
    await env.DB.prepare("SELECT count(*) AS n FROM shares WHERE owner_id = ?")
      .bind(ownerId)
      .first<{ n: number }>()
  )?.n;

describe("entry shares: bad requests change nothing", () => {
  it("validation errors name the field", async () => {
    const owner = await TestUser.create();
    const entry = await createEntry(owner);
    const cases: [Record<string, unknown>, string][] = [
      [{ recipientEmail: "a@b.test" }, "accountId"],
      [{ accountId: entry.id }, "recipientEmail"],
      [{ accountId: entry.id, recipientEmail: "not-an-email" }, "recipientEmail"],
      [{ accountId: entry.id, recipientEmail: "a@b.test", permission: "admin" }, "permission"],
      [{ accountId: entry.id, recipientEmail: "a@b.test", expiresAt: "tomorrow" }, "expiresAt"],
      [
        {
          accountId: entry.id,
          recipientEmail: "a@b.test",
          expiresAt: new Date(Date.now() - 1000).toISOString(),
        },
        "expiresAt",
      ],
      [
        { accountId: entry.id, recipientEmail: "a@b.test", wrapped_vault_key_invite: "%%%" },
        "wrapped_vault_key_invite",
      ],
    ];
    for (const [body, field] of cases) {
      const err = await expectErrorBody(
        await owner.call("POST", "/api/sharing", { body }),
        400,
        "VALIDATION_ERROR",
      );
      expect(err.details?.map((d) => d.field)).toContain(field);
    }
    expect(await countShares(owner.id)).toBe(0);
  });

  it("409 for a duplicate (any letter case) and for sharing with oneself", async () => {
    const owner = await TestUser.create();
    const entry = await createEntry(owner);
    await createShare(owner, { accountId: entry.id, recipientEmail: "dup@example.test" });
    await expectErrorBody(
      await owner.call("POST", "/api/sharing", {
        body: { accountId: entry.id, recipientEmail: "DUP@example.test" },
      }),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await owner.call("POST", "/api/sharing", {
        body: { accountId: entry.id, recipientEmail: owner.email.toUpperCase() },
      }),
      409,
      "CONFLICT",
    );
    expect(await countShares(owner.id)).toBe(1);
  });

  it("an unknown or deleted entry is 404", async () => {
    const owner = await TestUser.create();
    await expectErrorBody(
      await owner.call("POST", "/api/sharing", {
        body: { accountId: "nope", recipientEmail: "a@b.test" },
      }),
      404,
      "NOT_FOUND",
    );
    const entry = await createEntry(owner);
    await owner.call("DELETE", `/api/passwords/${entry.id}`);
    await expectErrorBody(
      await owner.call("POST", "/api/sharing", {
        body: { accountId: entry.id, recipientEmail: "a@b.test" },
      }),
      404,
      "NOT_FOUND",
    );
  });

  it("at most 10 shares per entry: the 11th is 429 with Retry-After", async () => {
    const owner = await TestUser.create();
    const entry = await createEntry(owner);
    for (let i = 0; i < 10; i++)
      await createShare(owner, { accountId: entry.id, recipientEmail: `r${i}@example.test` });
    const res = await owner.call("POST", "/api/sharing", {
      body: { accountId: entry.id, recipientEmail: "r10@example.test" },
    });
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    await expectErrorBody(res, 429, "RATE_LIMITED");
    expect(await countShares(owner.id)).toBe(10);
    const sc = await env.DB.prepare("SELECT share_count AS n FROM passwords WHERE id = ?")
      .bind(entry.id)
      .first<{ n: number }>();
    expect(sc?.n).toBe(10);
  });

  it("at most 50 active shares per user; revoked ones do not count", async () => {
    const owner = await TestUser.create();
    const entries = [];
    for (let i = 0; i < 6; i++) entries.push(await createEntry(owner));
    // 50 live shares inserted directly (the create endpoint is limited to 20 a minute).
    const now = new Date().toISOString();
    const stmts = [];
    for (let i = 0; i < 50; i++) {
      stmts.push(
        env.DB.prepare(
          "INSERT INTO shares (id, account_id, owner_id, recipient_email, status, permission, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', 'read', ?, ?)",
        ).bind(crypto.randomUUID(), entries[i % 5].id, owner.id, `bulk${i}@example.test`, now, now),
      );
    }
    await env.DB.batch(stmts);
    await expectErrorBody(
      await owner.call("POST", "/api/sharing", {
        body: { accountId: entries[5].id, recipientEmail: "late@example.test" },
      }),
      429,
      "RATE_LIMITED",
    );
    const one = (await listShares(owner, "owned", entries[0].id)).shares[0];
    await owner.call("PATCH", `/api/sharing/${one.id}`, { body: { status: "revoked" } });
    const ok = await owner.call("POST", "/api/sharing", {
      body: { accountId: entries[5].id, recipientEmail: "late@example.test" },
    });
    expect(ok.status).toBe(201);
  });

  it("PATCH needs status or permission; the recipient cannot revoke or change permission; the owner cannot accept", async () => {
    const { owner, recipient, share } = await sharedPair({ accept: false });
    await expectErrorBody(
      await owner.call("PATCH", `/api/sharing/${share.id}`, { body: {} }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await owner.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "done" } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await owner.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await recipient.call("PATCH", `/api/sharing/${share.id}`, { body: { permission: "write" } }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await recipient.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "revoked" } }),
      403,
      "FORBIDDEN",
    );
    const row = await env.DB.prepare(
      "SELECT status, permission, recipient_id FROM shares WHERE id = ?",
    )
      .bind(share.id)
      .first();
    expect(row).toEqual({ status: "pending", permission: "read", recipient_id: null });
  });

  it("a revoked share cannot be changed again (409) and the recipient cannot accept it (404)", async () => {
    const { owner, recipient, share } = await sharedPair({ accept: false });
    await owner.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "revoked" } });
    await expectErrorBody(
      await owner.call("PATCH", `/api/sharing/${share.id}`, { body: { permission: "write" } }),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await recipient.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }),
      404,
      "NOT_FOUND",
    );
  });

  it("list needs a valid type; view needs a valid action", async () => {
    const { recipient, share } = await sharedPair();
    await expectErrorBody(await recipient.call("GET", "/api/sharing"), 400, "VALIDATION_ERROR");
    await expectErrorBody(
      await recipient.call("GET", "/api/sharing?type=all"),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await recipient.call("POST", `/api/sharing/${share.id}/view`, {
        body: { action: "password_printed" },
        csrf: false,
      }),
      400,
      "VALIDATION_ERROR",
    );
    const n = await env.DB.prepare("SELECT count(*) AS n FROM share_view_logs WHERE share_id = ?")
      .bind(share.id)
      .first<{ n: number }>();
    expect(n?.n).toBe(0);
  });

  it("a public key that is not a P-256 JWK is refused", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("PUT", "/api/sharing/public-key", {
        body: { publicKey: { kty: "RSA", n: "x", e: "AQAB" } },
      }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(await user.call("GET", "/api/sharing/public-key"), 404, "NOT_FOUND");
  });
});
