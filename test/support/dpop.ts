import { env } from "cloudflare:test";
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
} from "jose";
import { expect } from "vitest";
import { dbFor } from "../../src/db/client";
import { devices } from "../../src/db/schema";
import type { TestUser } from "./auth";

export type DeviceKey = { privateKey: CryptoKey; jwk: JWK };

/** The key a browser makes with extractable: false; only its public half leaves the device. */
export async function deviceKey(): Promise<DeviceKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: false });
  return { privateKey, jwk: await exportJWK(publicKey) };
}

export async function nonce(user: TestUser): Promise<string> {
  const res = await user.call("GET", "/api/devices/dpop-nonce");
  expect(res.status).toBe(200);
  const body = (await res.json()) as { nonce: string };
  expect(res.headers.get("dpop-nonce")).toBe(body.nonce);
  return body.nonce;
}

export const sha256b64u = async (s: string) =>
  btoa(
    String.fromCharCode(
      ...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))),
    ),
  )
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** RFC 9449 section 4.2 proof for one request, bound to the user's bearer token unless `over` says otherwise. */
export async function proof(
  key: DeviceKey,
  user: TestUser,
  method: string,
  url: string,
  over: Record<string, unknown> = {},
): Promise<string> {
  const claims = {
    htm: method,
    htu: url,
    jti: crypto.randomUUID(),
    nonce: await nonce(user),
    ath: await sha256b64u(user.token),
    ...over,
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: key.jwk })
    .setIssuedAt()
    .sign(key.privateKey);
}

/**
 * A trusted device of the user's bound to a fresh DPoP key, as a registration and a later "trust"
 * leave it: it counts as trusted only on a request carrying a new proof by that key.
 */
export async function trustedKeyedDevice(
  userId: string,
): Promise<{ key: DeviceKey; fingerprint: string }> {
  const key = await deviceKey();
  const fingerprint = `fp-${crypto.randomUUID()}`;
  const now = new Date().toISOString();
  await dbFor(env, userId)
    .insert(devices)
    .values({
      id: crypto.randomUUID(),
      userId,
      deviceFingerprint: fingerprint,
      deviceName: "Laptop",
      deviceType: "desktop",
      trustLevel: "trusted",
      lastActiveAt: now,
      trustedAt: now,
      createdAt: now,
      dpopJkt: await calculateJwkThumbprint(key.jwk),
    });
  return { key, fingerprint };
}
