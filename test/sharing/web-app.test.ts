import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { sharedPair } from "../support/sharing";

const publicJwk = async () => {
  const jwk = (await crypto.subtle.exportKey(
    "jwk",
    (
      (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
        "deriveBits",
      ])) as CryptoKeyPair
    ).publicKey,
  )) as JsonWebKey;
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
};

// What the web app's sharing section adds (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people"): the wrapped private key kept for the owner's
// other devices, and the owner's view log.
describe("sharing for the web app", () => {
  it("keeps the wrapped private key for its owner only; others get the public key", async () => {
    const user = await TestUser.create();
    const other = await TestUser.create();
    const publicKey = await publicJwk();
    const put = await user.call("PUT", "/api/sharing/public-key", {
      body: { publicKey, wrappedPrivateKey: "AAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
    });
    expect(put.status).toBe(200);
    expect(
      (
        (await (await user.call("GET", "/api/sharing/public-key")).json()) as {
          wrappedPrivateKey: string;
        }
      ).wrappedPrivateKey,
    ).toBe("AAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    const looked = (await (
      await other.call("GET", `/api/sharing/public-key?email=${encodeURIComponent(user.email)}`)
    ).json()) as Record<string, unknown>;
    expect(looked.publicKey).toEqual(publicKey);
    expect(looked).not.toHaveProperty("wrappedPrivateKey");
  });

  it("refuses a wrapped private key that is not base64, changing nothing", async () => {
    const user = await TestUser.create();
    const res = await user.call("PUT", "/api/sharing/public-key", {
      body: { publicKey: await publicJwk(), wrappedPrivateKey: "not base64 at all!" },
    });
    expect(res.status).toBe(400);
    expect((await user.call("GET", "/api/sharing/public-key")).status).toBe(404);
  });

  it("shows the owner the view log, newest first; the recipient and strangers get 404", async () => {
    const { owner, recipient, share } = await sharedPair();
    expect(
      (await recipient.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }))
        .status,
    ).toBe(200);
    for (const action of ["password_viewed", "password_copied"]) {
      expect(
        (await recipient.call("POST", `/api/sharing/${share.id}/view`, { body: { action } }))
          .status,
      ).toBe(201);
    }
    const log = await owner.call("GET", `/api/sharing/${share.id}/views`);
    expect(log.status).toBe(200);
    const { views } = (await log.json()) as { views: { action: string; logged_at: string }[] };
    expect(views.map((v) => v.action).sort()).toEqual(["password_copied", "password_viewed"]);
    expect(views[0]!.logged_at >= views[1]!.logged_at).toBe(true);
    expect((await recipient.call("GET", `/api/sharing/${share.id}/views`)).status).toBe(404);
    expect(
      (await (await TestUser.create()).call("GET", `/api/sharing/${share.id}/views`)).status,
    ).toBe(404);
  });
});
