import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_SUBSCRIPTIONS_PER_USER } from "../../src/domains/push/service";
import { expectErrorBody, TestUser } from "../support/auth";
import { subscribe, subscriptionsOf } from "../support/push";

const b64url = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** A well-formed subscription body; the cap does not need a push service to answer. */
async function body(name = crypto.randomUUID()) {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const p256dh = b64url(
    new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer),
  );
  return {
    endpoint: `${env.TEST_PUSH_SERVICE_URL}/push/${name}`,
    expirationTime: null,
    keys: { p256dh, auth: b64url(crypto.getRandomValues(new Uint8Array(16))) },
  };
}

describe("Web Push: the per-user cap is held by the writing statement", () => {
  it("parallel subscribes near the cap: exactly enough succeed to reach it, the rest are 409, none past it", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_USER - 2; i++)
      expect((await subscribe(user, await body())).status).toBe(201);
    const bodies = await Promise.all([0, 1, 2, 3, 4, 5].map(() => body()));
    const results = await Promise.all(bodies.map((b) => subscribe(user, b)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409))
      await expectErrorBody(r, 409, "CONFLICT");
    expect(await subscriptionsOf(user)).toHaveLength(MAX_SUBSCRIPTIONS_PER_USER);
  });

  it("at the cap a browser already subscribed still renews its keys (200), a new one is refused", async () => {
    const user = await TestUser.create();
    const first = await body();
    expect((await subscribe(user, first)).status).toBe(201);
    for (let i = 1; i < MAX_SUBSCRIPTIONS_PER_USER; i++)
      expect((await subscribe(user, await body())).status).toBe(201);
    const renewed = await subscribe(user, { ...(await body()), endpoint: first.endpoint });
    expect(renewed.status).toBe(200);
    await expectErrorBody(await subscribe(user, await body()), 409, "CONFLICT");
    expect(await subscriptionsOf(user)).toHaveLength(MAX_SUBSCRIPTIONS_PER_USER);
  });
});
