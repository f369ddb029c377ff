import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { entryTotpService, seedLegacySecret } from "../support/entry-totp";
import { createEntry } from "../support/fixtures";
import {
  base32Encode,
  RFC6238_SEEDS,
  RFC6238_VECTORS,
  type RefAlgorithm,
} from "../support/rfc6238";

const meta = { ip: "192.0.2.1", userAgent: "vitest", device: null };

describe("legacy entry codes against RFC 6238 appendix B", () => {
  for (const alg of ["SHA-1", "SHA-256", "SHA-512"] as RefAlgorithm[]) {
    it(`/totp/code's service produces the ${alg} vectors and the seconds left in the step`, async () => {
      const user = await TestUser.create();
      const { id } = await createEntry(user);
      await seedLegacySecret(user.id, id, {
        secret: base32Encode(RFC6238_SEEDS[alg]),
        algorithm: alg,
        digits: 8,
        period: 30,
      });
      for (const v of RFC6238_VECTORS) {
        const service = entryTotpService(user.id, () => v.time * 1000);
        expect(await service.code(user.id, id, meta)).toEqual({
          code: v.codes[alg],
          remaining: 30 - (v.time % 30),
        });
      }
    });
  }
});
