import { env } from "cloudflare:test";
import { dbFor } from "../../src/db/client";
import { EntryTotpService, type LegacySecret } from "../../src/domains/entry-totp/service";

const b64 = (n: number) => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(n))));

export function zeroTrustBody(over: Record<string, unknown> = {}) {
  return {
    secretEncrypted: { iv: b64(12), ciphertext: b64(48) },
    algorithm: "SHA-1",
    digits: 6,
    period: 30,
    ...over,
  };
}

/**
 * Legacy (server-held) secrets cannot be created through the API, only carried over from before
 * zero-trust TOTP; tests make them through the service's own code path, as a data migration would.
 */
export function seedLegacySecret(
  userId: string,
  passwordId: string,
  legacy: LegacySecret,
  clock?: () => number,
) {
  return new EntryTotpService(
    dbFor(env, userId),
    env.DATA_ENCRYPTION_KEY as string,
    env,
    clock,
  ).setLegacySecret(userId, passwordId, legacy);
}

export function entryTotpService(userId: string, clock?: () => number) {
  return new EntryTotpService(dbFor(env, userId), env.DATA_ENCRYPTION_KEY as string, env, clock);
}
