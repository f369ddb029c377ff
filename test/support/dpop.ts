import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { expect } from "vitest";
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
  btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** RFC 9449 section 4.2 proof for one request, bound to the user's bearer token unless `over` says otherwise. */
export async function proof(key: DeviceKey, user: TestUser, method: string, url: string, over: Record<string, unknown> = {}): Promise<string> {
  const claims = { htm: method, htu: url, jti: crypto.randomUUID(), nonce: await nonce(user), ath: await sha256b64u(user.token), ...over };
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: key.jwk }).setIssuedAt().sign(key.privateKey);
}
