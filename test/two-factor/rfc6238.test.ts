import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { TwoFactorService, secretAad } from "../../src/domains/two-factor/service";
import { seal } from "../../src/lib/crypto";
import {
  base32Encode,
  referenceTotp,
  RFC6238_SEEDS,
  RFC6238_VECTORS,
  type RefAlgorithm,
} from "../support/rfc6238";

const ALGORITHMS: RefAlgorithm[] = ["SHA-1", "SHA-256", "SHA-512"];
const meta = { ip: "192.0.2.1", userAgent: "vitest", device: null };

describe("RFC 6238 appendix B test vectors", () => {
  it("the test's own reference implementation reproduces them", async () => {
    for (const v of RFC6238_VECTORS) {
      for (const alg of ALGORITHMS) {
        expect(await referenceTotp(RFC6238_SEEDS[alg], v.time, { algorithm: alg, digits: 8 })).toBe(
          v.codes[alg],
        );
      }
    }
  });

  it("account 2FA verification (the endpoint's service) accepts the SHA-1 vectors as 6-digit codes, once each", async () => {
    const userId = crypto.randomUUID();
    let now = 0;
    const db = dbFor(env, userId);
    const service = new TwoFactorService(db, env.DATA_ENCRYPTION_KEY as string, "Test", () => now);
    await service.enroll(userId, "rfc@example.test", meta);
    const { enrollment_id } = (await env.DB.prepare(
      "SELECT enrollment_id FROM two_factor WHERE user_id = ?",
    )
      .bind(userId)
      .first<{ enrollment_id: string }>())!;
    const sealed = await seal(
      env.DATA_ENCRYPTION_KEY as string,
      base32Encode(RFC6238_SEEDS["SHA-1"]),
      secretAad(userId, enrollment_id),
    );
    await env.DB.prepare("UPDATE two_factor SET secret_sealed = ? WHERE user_id = ?")
      .bind(sealed, userId)
      .run();
    for (const v of RFC6238_VECTORS) {
      now = v.time * 1000;
      // RFC 4226 section 5.3: a 6-digit code is the 8-digit value modulo 10^6.
      const code = v.codes["SHA-1"].slice(-6);
      expect((await service.verify(userId, code, meta)).answer).toEqual({ verified: true });
      await expect(service.verify(userId, code, meta)).rejects.toMatchObject({
        code: "UNAUTHORIZED",
      });
    }
  });
});
