import { env } from "cloudflare:test";
import type { TestUser } from "./auth";

export type Received = {
  payload: Record<string, unknown> | null;
  ttl: string | null;
  vapid: { ok: boolean; reason?: string; aud?: string; sub?: string; k?: string };
};

const b64url = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/**
 * What a browser makes when it subscribes: an ECDH P-256 key pair and a 16-byte auth secret (RFC
 * 8291). The private half goes to the stand-in push service only, which decrypts with it.
 */
export async function browserSubscription() {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const p256dh = b64url(
    new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer),
  );
  const d = ((await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey).d!;
  const auth = b64url(crypto.getRandomValues(new Uint8Array(16)));
  const name = b64url(crypto.getRandomValues(new Uint8Array(12)));
  const endpoint = `${env.TEST_PUSH_SERVICE_URL}/push/${name}`;
  const res = await fetch(`${env.TEST_PUSH_SERVICE_URL}/__control/subs/${name}`, {
    method: "PUT",
    body: JSON.stringify({ privateKey: d, authSecret: auth }),
  });
  if (!res.ok) throw new Error("push service stand-in refused the subscription");
  return {
    name,
    json: { endpoint, expirationTime: null, keys: { p256dh, auth } },
    received: async () =>
      (
        (await (await fetch(`${env.TEST_PUSH_SERVICE_URL}/__control/subs/${name}`)).json()) as {
          received: Received[];
        }
      ).received,
    answer: async (status: number) =>
      void (await fetch(`${env.TEST_PUSH_SERVICE_URL}/__control/subs/${name}`, {
        method: "PATCH",
        body: JSON.stringify({ answer: status }),
      })),
  };
}

export async function subscribe(user: TestUser, body: unknown) {
  return user.call("POST", "/api/push/subscriptions", { body });
}

export async function subscriptionsOf(
  user: TestUser,
): Promise<{ id: string; push_service: string }[]> {
  const res = await user.call("GET", "/api/push/subscriptions");
  return ((await res.json()) as { subscriptions: { id: string; push_service: string }[] })
    .subscriptions;
}
