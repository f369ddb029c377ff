/**
 * This device's reset key: a P-256 ECDH pair made in the browser. The private key is
 * non-extractable and lives only in IndexedDB (a CryptoKey is stored as such, never as bytes); the
 * server gets the public key and seals the new password to it (ECDH-ES + A256GCM, RFC 7518 §4.6).
 */
import { compactDecrypt } from "jose";
import type { LocalDb } from "../../../core/store";
import type { WireBody } from "../../../core/api";

/** The public half as the reset endpoints take it: a P-256 key's coordinates, nothing more. */
export type ResetPublicJwk = NonNullable<WireBody<"/api/tasks/reset", "post">["clientPublicKey"]>;
export type DeviceKey = { privateKey: CryptoKey; publicJwk: ResetPublicJwk };

const metaKey = (userId: string) => `resetKey:${userId}`;

async function locked<T>(name: string, run: () => Promise<T>): Promise<T> {
  return navigator.locks ? navigator.locks.request(name, run) : run();
}

/** The device's key pair, made on first use; two tabs asking at once get the same pair. */
export function deviceKey(db: LocalDb, userId: string): Promise<DeviceKey> {
  return locked(`reset-key:${userId}`, async () => {
    const have = await db.meta<DeviceKey>(metaKey(userId));
    if (have) return have;
    const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, [
      "deriveBits",
    ])) as CryptoKeyPair;
    const { x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
    if (!x || !y) throw new Error("the browser exported an EC key without its coordinates");
    const made: DeviceKey = {
      privateKey: pair.privateKey,
      publicJwk: { kty: "EC", crv: "P-256", x, y },
    };
    await db.setMeta(metaKey(userId), made);
    return made;
  });
}

/** Opens a compact JWE sealed to this device's key. */
export async function openSealed(key: DeviceKey, jwe: string): Promise<string> {
  const { plaintext, protectedHeader } = await compactDecrypt(jwe, key.privateKey, {
    keyManagementAlgorithms: ["ECDH-ES"],
    contentEncryptionAlgorithms: ["A256GCM"],
  });
  if (protectedHeader.alg !== "ECDH-ES") throw new Error("unexpected JWE algorithm");
  return new TextDecoder().decode(plaintext);
}
