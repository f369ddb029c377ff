import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { inviteBody, inviteTokenFor } from "../support/emergency";
import { createEntry } from "../support/fixtures";
import { dmsTimer, fireAlarm, rewindSwitch, wrappedKey } from "../support/recovery";
import { createShare, invite, listShares } from "../support/sharing";

// docs/decisions/hardening.md, "Hardening: limits, abuse and failure" item 7: an `email` claim the provider marks `email_verified: false` names no one.
const unverified = (email: string) => TestUser.create({ email, emailVerified: false });

async function publicJwk() {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

describe("email_verified", () => {
  it("an unverified token cannot see or accept a share addressed to its email; the verified owner of the address can", async () => {
    const owner = await TestUser.create();
    const email = `victim-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const entry = await createEntry(owner, { name: "Bank", website: "bank.test" });
    const share = await createShare(owner, {
      accountId: entry.id,
      recipientEmail: email,
      permission: "read",
      wrapped_vault_key_invite: invite(),
      invite_token_salt: "s",
    });
    const impostor = await unverified(email);
    expect((await listShares(impostor, "received")).shares).toEqual([]);
    await expectErrorBody(
      await impostor.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }),
      404,
      "NOT_FOUND",
    );
    const row = await env.DB.prepare("SELECT status, recipient_id FROM shares WHERE id = ?")
      .bind(share.id)
      .first();
    expect(row).toMatchObject({ status: "pending", recipient_id: null });
    const real = await TestUser.create({ email, emailVerified: true });
    expect(
      (await real.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } })).status,
    ).toBe(200);
  });

  it("an unverified token cannot accept an emergency invitation sent to its email", async () => {
    const owner = await TestUser.create();
    const email = `contact-${crypto.randomUUID().slice(0, 8)}@example.test`;
    expect(
      (await owner.call("POST", "/api/vault/emergency", { body: inviteBody(email) })).status,
    ).toBe(201);
    const token = await inviteTokenFor(email);
    const impostor = await unverified(email);
    await expectErrorBody(
      await impostor.call("POST", "/api/vault/emergency/accept", { body: { token } }),
      403,
      "FORBIDDEN",
    );
    const row = await env.DB.prepare(
      "SELECT status, contact_user_id FROM emergency_contacts WHERE owner_id = ?",
    )
      .bind(owner.id)
      .first();
    expect(row).toMatchObject({ status: "pending_invite", contact_user_id: null });
    const real = await TestUser.create({ email });
    expect(
      (await real.call("POST", "/api/vault/emergency/accept", { body: { token } })).status,
    ).toBe(200);
  });

  it("an unverified token cannot publish a sharing key under its email", async () => {
    const email = `keyless-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const impostor = await unverified(email);
    await expectErrorBody(
      await impostor.call("PUT", "/api/sharing/public-key", {
        body: { publicKey: await publicJwk() },
      }),
      422,
      "UNPROCESSABLE",
    );
    const looked = await impostor.call(
      "GET",
      `/api/sharing/public-key?email=${encodeURIComponent(email)}`,
    );
    expect(looked.status).toBe(404);
  });

  it("a second account with the same verified email cannot replace the first's sharing key", async () => {
    const email = `shared-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const first = await TestUser.create({ email, emailVerified: true });
    const second = await TestUser.create({ email, emailVerified: true });
    const mine = await publicJwk();
    expect(
      (await first.call("PUT", "/api/sharing/public-key", { body: { publicKey: mine } })).status,
    ).toBe(200);
    await expectErrorBody(
      await second.call("PUT", "/api/sharing/public-key", {
        body: { publicKey: await publicJwk() },
      }),
      409,
      "CONFLICT",
    );
    const looked = await second.call(
      "GET",
      `/api/sharing/public-key?email=${encodeURIComponent(email)}`,
    );
    expect(((await looked.json()) as { publicKey: { x: string } }).publicKey.x).toBe(mine.x);
    // The holder itself still replaces its own key.
    const next = await publicJwk();
    expect(
      (await first.call("PUT", "/api/sharing/public-key", { body: { publicKey: next } })).status,
    ).toBe(200);
  });

  it("an unverified token sees no dead man's switch transfer released to its email", async () => {
    const owner = await TestUser.create();
    const email = `heir-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const made = await owner.call("POST", "/api/dead-man-switch", {
      body: { inactivity_days: 30, notify_at_days: [7], notify_via: ["email"] },
    });
    expect(made.status).toBe(201);
    const add = await owner.call("POST", "/api/dead-man-switch/recipients", {
      body: { recipient_email: email, recipient_name: "Heir", wrapped_recovery_key: wrappedKey() },
    });
    expect(add.status).toBe(201);
    const { recipient } = (await add.json()) as { recipient: { id: string } };
    await rewindSwitch(owner.id, 31);
    await fireAlarm(dmsTimer(owner.id));
    const impostor = await unverified(email);
    expect(
      (
        (await (await impostor.call("GET", "/api/dead-man-switch/transfers")).json()) as {
          transfers: unknown[];
        }
      ).transfers,
    ).toEqual([]);
    await expectErrorBody(
      await impostor.call("POST", `/api/dead-man-switch/transfers/${recipient.id}/claim`, {
        body: {},
      }),
      404,
      "NOT_FOUND",
    );
    const real = await TestUser.create({ email });
    expect(
      (
        (await (await real.call("GET", "/api/dead-man-switch/transfers")).json()) as {
          transfers: unknown[];
        }
      ).transfers,
    ).toHaveLength(1);
  });
});
