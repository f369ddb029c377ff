/**
 * The attack catalogue for emergency access and its invitations: another user's ids (IDOR), a
 * cookie-authenticated mutation without its CSRF token, replayed tokens and device proofs,
 * bodies past the size cap and fields the routes do not take.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { emergencyContacts } from "../../src/db/schema";
import { expectErrorBody, TestUser } from "../support/auth";
import { oversized, viaCookie } from "../support/attacks";
import { proof, trustedKeyedDevice } from "../support/dpop";
import {
  accepted,
  invite,
  inviteBody,
  inviteTokenFor,
  requested,
  type Contact,
} from "../support/emergency";
import { contactRow, db, wrappedKey } from "../support/recovery";

const BASE = "/api/vault/emergency";
const ownedCount = async (ownerId: string) =>
  (await db.select().from(emergencyContacts).where(eq(emergencyContacts.ownerId, ownerId)).all())
    .length;

describe("emergency access: attacks", () => {
  it("refuses every cookie-authenticated mutation without the user's CSRF token (none, another user's), changing nothing", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const invitee = await TestUser.create();
    const { contact } = await requested(owner, friend, { wait_hours: 10 });
    const pending = (await invite(owner, invitee)).contact;
    const token = await inviteTokenFor(invitee.email);
    const foreign = await (await TestUser.create()).csrf();
    const before = await contactRow(contact.id);
    const calls: [TestUser, string, string, unknown][] = [
      [owner, "POST", BASE, inviteBody(`new-${crypto.randomUUID().slice(0, 8)}@example.test`)],
      [invitee, "POST", `${BASE}/accept`, { token }],
      [invitee, "POST", `${BASE}/accept`, { contact_id: pending.id }],
      [friend, "POST", `${BASE}/request`, { contact_id: contact.id }],
      [owner, "POST", `${BASE}/respond`, { contact_id: contact.id, action: "approve" }],
      [owner, "PATCH", `${BASE}/${contact.id}`, { wait_hours: 1 }],
      [owner, "DELETE", `${BASE}/${contact.id}`, undefined],
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
    expect(await contactRow(contact.id)).toEqual(before);
    expect(await contactRow(pending.id)).toMatchObject({
      status: "pending_invite",
      contactUserId: null,
    });
    expect(await ownedCount(owner.id)).toBe(2);
    // The same cookie with the user's own token is let in: the refusals above were the token's.
    expect(
      (
        await viaCookie(
          owner,
          "PATCH",
          `${BASE}/${contact.id}`,
          { wait_hours: 1 },
          await owner.csrf(),
        )
      ).status,
    ).toBe(200);
  });

  it("one owner's record ids open nothing of another owner's: no vault, key, request, answer or change", async () => {
    const owner = await TestUser.create();
    const other = await TestUser.create();
    const friend = await TestUser.create();
    const { contact: mine } = await requested(owner, friend);
    expect(
      (
        await owner.call("POST", `${BASE}/respond`, {
          body: { contact_id: mine.id, action: "approve" },
        })
      ).status,
    ).toBe(200);
    // The same friend is only pending with another owner: their granted record must not reach it.
    const theirs = (await accepted(other, friend)).contact;
    await expectErrorBody(await friend.call("GET", `${BASE}/${theirs.id}/vault`), 403, "FORBIDDEN");
    await expectErrorBody(
      await friend.call("GET", `${BASE}/access?contact_id=${theirs.id}`),
      403,
      "FORBIDDEN",
    );
    expect((await friend.call("GET", `${BASE}/${mine.id}/vault`)).status).toBe(200);
    // The other owner reaches nothing of this owner's record by its id.
    await expectErrorBody(await other.call("GET", `${BASE}/${mine.id}/vault`), 404, "NOT_FOUND");
    await expectErrorBody(
      await other.call("PATCH", `${BASE}/${mine.id}`, { body: { wait_hours: 1 } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(await other.call("DELETE", `${BASE}/${mine.id}`), 404, "NOT_FOUND");
    await expectErrorBody(
      await other.call("POST", `${BASE}/respond`, {
        body: { contact_id: mine.id, action: "deny" },
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await other.call("POST", `${BASE}/accept`, { body: { contact_id: mine.id } }),
      404,
      "NOT_FOUND",
    );
    expect(await contactRow(mine.id)).toMatchObject({
      status: "access_granted",
      ownerId: owner.id,
      contactUserId: friend.id,
      waitHours: 48,
    });
  });

  it("an invitation token is taken once: a replay by the addressee is 409, by anyone else 403 or 404, and a revoked one is gone", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const thief = await TestUser.create();
    const { contact } = await invite(owner, friend);
    const token = await inviteTokenFor(friend.email);
    expect((await friend.call("POST", `${BASE}/accept`, { body: { token } })).status).toBe(200);
    await expectErrorBody(
      await friend.call("POST", `${BASE}/accept`, { body: { token } }),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await thief.call("POST", `${BASE}/accept`, { body: { token } }),
      404,
      "NOT_FOUND",
    );
    expect(await contactRow(contact.id)).toMatchObject({
      status: "active",
      contactUserId: friend.id,
    });

    const late = await TestUser.create();
    const revoked = (await invite(owner, late)).contact;
    const lateToken = await inviteTokenFor(late.email);
    expect((await owner.call("DELETE", `${BASE}/${revoked.id}`)).status).toBe(200);
    await expectErrorBody(
      await late.call("POST", `${BASE}/accept`, { body: { token: lateToken } }),
      404,
      "NOT_FOUND",
    );
    expect(await contactRow(revoked.id)).toMatchObject({ status: "revoked", contactUserId: null });
  });

  it("a trusted device's proof counts once: replayed on a stale sign-in, an invitation needs a fresh sign-in", async () => {
    const owner = await TestUser.create({ authAge: 3600 });
    const friend = await TestUser.create();
    const { key, fingerprint } = await trustedKeyedDevice(owner.id);
    const url = `https://vault.test${BASE}`;
    const dpop = await proof(key, owner, "POST", url);
    const headers = { "x-device-fingerprint": fingerprint, dpop };
    expect(
      (await owner.call("POST", BASE, { body: inviteBody(friend.email), headers })).status,
    ).toBe(201);
    const replay = await owner.call("POST", BASE, {
      body: inviteBody(`again-${crypto.randomUUID().slice(0, 8)}@example.test`),
      headers,
    });
    await expectErrorBody(replay, 401, "STEP_UP_REQUIRED");
    expect(await ownedCount(owner.id)).toBe(1);
    // A fresh proof by the same key is the trusted device again.
    const fresh = {
      "x-device-fingerprint": fingerprint,
      dpop: await proof(key, owner, "POST", url),
    };
    expect(
      (
        await owner.call("POST", BASE, {
          body: inviteBody(`third-${crypto.randomUUID().slice(0, 8)}@example.test`),
          headers: fresh,
        })
      ).status,
    ).toBe(201);
  });

  it("refuses bodies past the 1 MiB cap with 413 and changes nothing; each opaque field has its own limit", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const { contact } = await requested(owner, friend, { wait_hours: 10 });
    const before = await contactRow(contact.id);
    const calls: [TestUser, string, string, Record<string, unknown>][] = [
      [owner, "POST", BASE, inviteBody("big@example.test")],
      [friend, "POST", `${BASE}/accept`, { token: "t".repeat(32) }],
      [friend, "POST", `${BASE}/request`, { contact_id: contact.id }],
      [owner, "POST", `${BASE}/respond`, { contact_id: contact.id, action: "approve" }],
      [owner, "PATCH", `${BASE}/${contact.id}`, { wait_hours: 1 }],
      [owner, "DELETE", `${BASE}/${contact.id}`, {}],
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
    expect(await contactRow(contact.id)).toEqual(before);
    expect(await ownedCount(owner.id)).toBe(1);

    const fields: [string, TestUser, string, Record<string, unknown>, string][] = [
      [
        "wrapped_access_key over 16,384",
        await TestUser.create(),
        BASE,
        inviteBody("f1@example.test", { wrapped_access_key: "k".repeat(16_385) }),
        "wrapped_access_key",
      ],
      [
        "invite_salt over 512",
        await TestUser.create(),
        BASE,
        inviteBody("f2@example.test", { invite_salt: "s".repeat(513) }),
        "invite_salt",
      ],
      [
        "email over 254",
        await TestUser.create(),
        BASE,
        inviteBody(`${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.test`),
        "email",
      ],
      ["token over 512", friend, `${BASE}/accept`, { token: "t".repeat(513) }, "token"],
      [
        "contact_id over 128",
        friend,
        `${BASE}/request`,
        { contact_id: "c".repeat(129) },
        "contact_id",
      ],
    ];
    for (const [label, who, path, body, field] of fields) {
      const err = await expectErrorBody(
        await who.call("POST", path, { body }),
        400,
        "VALIDATION_ERROR",
      );
      expect(
        err.details?.map((d) => d.field),
        label,
      ).toContain(field);
    }
  });

  it("fields the routes do not take change nothing: no chosen status, owner, contact, times or id", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    const thief = await TestUser.create();
    const past = new Date(Date.now() - 86_400_000).toISOString();
    const chosenId = crypto.randomUUID();
    const res = await owner.call("POST", BASE, {
      body: inviteBody(friend.email, {
        id: chosenId,
        status: "access_granted",
        owner_id: thief.id,
        contact_user_id: thief.id,
        grant_at: past,
        granted_at: past,
        invite_expires_at: "2999-01-01T00:00:00.000Z",
      }),
    });
    expect(res.status).toBe(201);
    const made = ((await res.json()) as { contact: Contact }).contact;
    expect(made.id).not.toBe(chosenId);
    expect(made).toMatchObject({
      owner_id: owner.id,
      contact_user_id: null,
      status: "pending_invite",
      grant_at: null,
      granted_at: null,
    });
    const row = (await contactRow(made.id))!;
    expect(Date.parse(row.inviteExpiresAt) - Date.parse(row.createdAt)).toBe(7 * 86_400_000);

    // Accepting names the caller, whatever the body says.
    const acceptRes = await friend.call("POST", `${BASE}/accept`, {
      body: {
        token: await inviteTokenFor(friend.email),
        contact_user_id: thief.id,
        status: "access_granted",
      },
    });
    expect(acceptRes.status).toBe(200);
    expect(await contactRow(made.id)).toMatchObject({ status: "active", contactUserId: friend.id });

    // A change of wait hours carries nothing else; a request's grant time is the server's.
    const patched = await owner.call("PATCH", `${BASE}/${made.id}`, {
      body: {
        wait_hours: 5,
        status: "access_granted",
        contact_email: thief.email,
        wrapped_access_key: wrappedKey(),
      },
    });
    expect(patched.status).toBe(200);
    const afterPatch = (await contactRow(made.id))!;
    expect(afterPatch).toMatchObject({
      waitHours: 5,
      status: "active",
      contactEmail: friend.email.toLowerCase(),
      wrappedAccessKey: row.wrappedAccessKey,
    });
    const before = Date.now();
    const reqRes = await friend.call("POST", `${BASE}/request`, {
      body: { contact_id: made.id, grant_at: past, status: "access_granted" },
    });
    expect(reqRes.status).toBe(200);
    const afterRequest = (await contactRow(made.id))!;
    expect(afterRequest.status).toBe("access_requested");
    expect(Date.parse(afterRequest.grantAt!)).toBeGreaterThanOrEqual(before + 5 * 3_600_000 - 1000);
  });
});
