/**
 * The attack catalogue for sharing and its invitations: another user's ids (IDOR), a
 * cookie-authenticated mutation without its CSRF token, a replayed acceptance, bodies past the
 * size cap and fields the routes do not take.
 */
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { directoryDb } from "../../src/db/client";
import { sharingKeys, shares } from "../../src/db/schema";
import { MAX_ENCRYPTED_DATA } from "../../src/domains/passwords";
import { expectErrorBody, TestUser } from "../support/auth";
import { oversized, viaCookie } from "../support/attacks";
import { createEntry } from "../support/fixtures";
import { createShare, invite, listShares, sharedPair, type ShareJson } from "../support/sharing";

const shareRow = (id: string) =>
  directoryDb(env).select().from(shares).where(eq(shares.id, id)).get();
const keyRow = (userId: string) =>
  directoryDb(env).select().from(sharingKeys).where(eq(sharingKeys.userId, userId)).get();

/** A P-256 public key as a browser exports it (only the public half). */
async function publicJwk() {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const { kty, crv, x, y } = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  return { kty, crv, x, y };
}

describe("sharing: attacks", () => {
  it("refuses every cookie-authenticated mutation without the user's CSRF token (none, another user's), changing nothing", async () => {
    const { owner, recipient, entry, share } = await sharedPair({ permission: "write" });
    const pendingTo = await TestUser.create();
    const pending = await createShare(owner, {
      accountId: entry.id,
      recipientEmail: pendingTo.email,
    });
    const foreign = await (await TestUser.create()).csrf();
    const before = [await shareRow(share.id), await shareRow(pending.id)];
    const calls: [TestUser, string, string, unknown][] = [
      [
        owner,
        "POST",
        "/api/sharing",
        { accountId: entry.id, recipientEmail: "third@example.test" },
      ],
      [pendingTo, "PATCH", `/api/sharing/${pending.id}`, { status: "active" }],
      [owner, "PATCH", `/api/sharing/${share.id}`, { status: "revoked" }],
      [owner, "DELETE", `/api/sharing/${share.id}`, undefined],
      [recipient, "PATCH", `/api/sharing/${share.id}/account`, { name: "Taken" }],
      [owner, "PUT", "/api/sharing/public-key", { publicKey: await publicJwk() }],
    ];
    for (const [who, method, path, body] of calls) {
      for (const csrf of [undefined, foreign]) {
        await expectErrorBody(
          await viaCookie(who, method, path, body, csrf),
          403,
          "FORBIDDEN",
        ).catch((e: Error) => {
          throw new Error(`${method} ${path} csrf=${csrf ? "foreign" : "none"}: ${e.message}`);
        });
      }
    }
    expect([await shareRow(share.id), await shareRow(pending.id)]).toEqual(before);
    expect((await listShares(owner, "owned")).shares.map((s) => s.id).sort()).toEqual(
      [share.id, pending.id].sort(),
    );
    expect(
      await env.DB.prepare("SELECT name FROM passwords WHERE id = ?").bind(entry.id).first(),
    ).toEqual({ name: "Bank" });
    expect(await keyRow(owner.id)).toBeFalsy();
    // The same cookie with the user's own token is let in: the refusals above were the token's.
    expect(
      (
        await viaCookie(
          pendingTo,
          "PATCH",
          `/api/sharing/${pending.id}`,
          { status: "active" },
          await pendingTo.csrf(),
        )
      ).status,
    ).toBe(200);
  });

  it("another user's share and entry ids reach nothing: no listing, view log, acceptance or change", async () => {
    const { owner, recipient, entry, share } = await sharedPair({ permission: "write" });
    const stranger = await TestUser.create();
    expect((await listShares(stranger, "owned", entry.id)).shares).toEqual([]);
    expect((await listShares(stranger, "received", entry.id)).shares).toEqual([]);
    await expectErrorBody(
      await stranger.call("GET", `/api/sharing/${share.id}/views`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await stranger.call("POST", `/api/sharing/${share.id}/view`, {
        body: { action: "password_viewed" },
      }),
      404,
      "NOT_FOUND",
    );
    // The recipient's own share id does not give them the owner's side of it.
    await expectErrorBody(
      await recipient.call("GET", `/api/sharing/${share.id}/views`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await recipient.call("DELETE", `/api/sharing/${share.id}`),
      404,
      "NOT_FOUND",
    );
    // A pending share addressed to someone else cannot be taken by its id.
    const addressee = await TestUser.create();
    const pending = await createShare(owner, {
      accountId: entry.id,
      recipientEmail: addressee.email,
    });
    await expectErrorBody(
      await stranger.call("PATCH", `/api/sharing/${pending.id}`, { body: { status: "active" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await recipient.call("PATCH", `/api/sharing/${pending.id}`, { body: { status: "active" } }),
      404,
      "NOT_FOUND",
    );
    expect(await shareRow(pending.id)).toMatchObject({ status: "pending", recipientId: null });
    expect(await shareRow(share.id)).toMatchObject({
      status: "active",
      recipientId: recipient.id,
      ownerId: owner.id,
    });
  });

  it("an acceptance replayed changes nothing: the share keeps its first acceptance time and recipient", async () => {
    const { recipient, share } = await sharedPair();
    const first = (await shareRow(share.id))!;
    expect(first.acceptedAt).not.toBeNull();
    const again = await recipient.call("PATCH", `/api/sharing/${share.id}`, {
      body: { status: "active" },
    });
    expect(again.status).toBe(200);
    expect(await shareRow(share.id)).toEqual(first);
  });

  it("refuses bodies past the 1 MiB cap with 413 and changes nothing; each field has its own limit", async () => {
    const { owner, recipient, entry, share } = await sharedPair({ permission: "write" });
    const before = await shareRow(share.id);
    const calls: [TestUser, string, string, Record<string, unknown>][] = [
      [owner, "POST", "/api/sharing", { accountId: entry.id, recipientEmail: "big@example.test" }],
      [owner, "PATCH", `/api/sharing/${share.id}`, { permission: "read" }],
      [owner, "DELETE", `/api/sharing/${share.id}`, {}],
      [recipient, "POST", `/api/sharing/${share.id}/view`, { action: "password_viewed" }],
      [recipient, "PATCH", `/api/sharing/${share.id}/account`, { name: "Big" }],
      [owner, "PUT", "/api/sharing/public-key", { publicKey: await publicJwk() }],
    ];
    for (const [who, method, path, fields] of calls) {
      const res = await who.call(method, path, {
        rawBody: oversized(fields),
        headers: { "content-type": "application/json" },
      });
      await expectErrorBody(res, 413, "PAYLOAD_TOO_LARGE").catch((e: Error) => {
        throw new Error(`${method} ${path}: ${e.message}`);
      });
    }
    expect(await shareRow(share.id)).toEqual(before);
    expect((await listShares(owner, "owned")).shares).toHaveLength(1);
    expect(await keyRow(owner.id)).toBeFalsy();

    const fields: [string, TestUser, string, string, Record<string, unknown>, string][] = [
      [
        "accountId over 128",
        owner,
        "POST",
        "/api/sharing",
        { accountId: "a".repeat(129), recipientEmail: "f@example.test" },
        "accountId",
      ],
      [
        "wrapped invite over 8192",
        owner,
        "POST",
        "/api/sharing",
        {
          accountId: entry.id,
          recipientEmail: "f@example.test",
          wrapped_vault_key_invite: "A".repeat(8196),
        },
        "wrapped_vault_key_invite",
      ],
      [
        "invite salt over 512",
        owner,
        "POST",
        "/api/sharing",
        {
          accountId: entry.id,
          recipientEmail: "f@example.test",
          invite_token_salt: "s".repeat(513),
        },
        "invite_token_salt",
      ],
      [
        "encrypted_data over the entry cap",
        recipient,
        "PATCH",
        `/api/sharing/${share.id}/account`,
        { encrypted_data: "A".repeat(MAX_ENCRYPTED_DATA + 4) },
        "encrypted_data",
      ],
      [
        "name over 500",
        recipient,
        "PATCH",
        `/api/sharing/${share.id}/account`,
        { name: "n".repeat(501) },
        "name",
      ],
      [
        "wrapped private key over 4096",
        owner,
        "PUT",
        "/api/sharing/public-key",
        { publicKey: await publicJwk(), wrappedPrivateKey: "A".repeat(4100) },
        "wrappedPrivateKey",
      ],
    ];
    for (const [label, who, method, path, body, field] of fields) {
      const err = await expectErrorBody(
        await who.call(method, path, { body }),
        400,
        "VALIDATION_ERROR",
      );
      expect(
        err.details?.map((d) => d.field),
        label,
      ).toContain(field);
    }
    expect(await shareRow(share.id)).toEqual(before);
  });

  it("fields the routes do not take change nothing: no chosen owner, recipient, status, acceptance, entry or key owner", async () => {
    const owner = await TestUser.create();
    const recipient = await TestUser.create();
    const thief = await TestUser.create();
    const entry = await createEntry(owner, { name: "Bank", website: "bank.test" });
    const other = await createEntry(owner, { name: "Other" });
    const chosenId = crypto.randomUUID();
    const res = await owner.call("POST", "/api/sharing", {
      body: {
        accountId: entry.id,
        recipientEmail: recipient.email,
        wrapped_vault_key_invite: invite(),
        id: chosenId,
        owner_id: thief.id,
        recipient_id: thief.id,
        status: "active",
        accepted_at: new Date().toISOString(),
      },
    });
    expect(res.status).toBe(201);
    const made = ((await res.json()) as { share: ShareJson }).share;
    expect(made.id).not.toBe(chosenId);
    expect(await shareRow(made.id)).toMatchObject({
      ownerId: owner.id,
      recipientId: null,
      status: "pending",
      acceptedAt: null,
      accountId: entry.id,
    });
    // The thief's token cannot accept it, whatever the body names.
    await expectErrorBody(
      await thief.call("PATCH", `/api/sharing/${made.id}`, {
        body: { status: "active", recipient_id: thief.id, recipientEmail: thief.email },
      }),
      404,
      "NOT_FOUND",
    );
    expect(
      (
        await recipient.call("PATCH", `/api/sharing/${made.id}`, {
          body: { status: "active", recipient_id: thief.id },
        })
      ).status,
    ).toBe(200);
    expect(await shareRow(made.id)).toMatchObject({ recipientId: recipient.id, status: "active" });

    // The owner's change carries only status and permission: not another entry, recipient or expiry.
    const patched = await owner.call("PATCH", `/api/sharing/${made.id}`, {
      body: {
        permission: "write",
        account_id: other.id,
        recipient_email: thief.email,
        expires_at: "2999-01-01T00:00:00.000Z",
      },
    });
    expect(patched.status).toBe(200);
    expect(await shareRow(made.id)).toMatchObject({
      accountId: entry.id,
      recipientEmail: recipient.email.toLowerCase(),
      expiresAt: null,
      permission: "write",
    });

    // A public key is the caller's own: a named user id or email is not taken.
    const key = await publicJwk();
    expect(
      (
        await thief.call("PUT", "/api/sharing/public-key", {
          body: { publicKey: key, user_id: owner.id, email: owner.email },
        })
      ).status,
    ).toBeLessThan(300);
    expect(await keyRow(owner.id)).toBeFalsy();
    expect(await keyRow(thief.id)).toMatchObject({ email: thief.email.toLowerCase() });
  });
});
