import { describe, expect, it } from "vitest";
import { RFC6238_SEEDS, RFC6238_VECTORS, type RefAlgorithm } from "../../test/support/rfc6238";
import {
  hotp,
  openTotpSecret,
  parseTotpInput,
  sealTotpSecret,
  totpAt,
  TotpInputError,
} from "../src/totp";

const key = (alg: RefAlgorithm) =>
  crypto.subtle.importKey(
    "raw",
    new Uint8Array(RFC6238_SEEDS[alg]),
    { name: "HMAC", hash: alg },
    false,
    ["sign"],
  );

describe("client TOTP (RFC 6238 appendix B, RFC 4226 appendix D)", () => {
  it.each(RFC6238_VECTORS)("time $time", async ({ time, codes }) => {
    for (const alg of ["SHA-1", "SHA-256", "SHA-512"] as const)
      expect((await totpAt(await key(alg), time * 1000, 8, 30)).code).toBe(codes[alg]);
  });

  it("RFC 4226 HOTP values for counters 0 and 9", async () => {
    expect(await hotp(await key("SHA-1"), 0, 6)).toBe("755224");
    expect(await hotp(await key("SHA-1"), 9, 6)).toBe("520489");
  });

  it("seconds left run from period down to 1", async () => {
    expect((await totpAt(await key("SHA-1"), 60_000, 6, 30)).remaining).toBe(30);
    expect((await totpAt(await key("SHA-1"), 89_999, 6, 30)).remaining).toBe(1);
  });

  it("reads otpauth URIs and typed secrets; refuses the rest with a reason", () => {
    const p = parseTotpInput(
      "otpauth://totp/ACME%20Co:john@example.com?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ&issuer=ACME%20Co&algorithm=SHA512&digits=8&period=60",
    );
    expect(p).toMatchObject({
      algorithm: "SHA-512",
      digits: 8,
      period: 60,
      issuer: "ACME Co",
      account: "john@example.com",
    });
    expect(parseTotpInput("jbsw y3dp ehpk 3pxp").secret).toEqual(
      new Uint8Array([0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x21, 0xde, 0xad, 0xbe, 0xef]),
    );
    for (const bad of [
      "",
      "abc!",
      "JBSWY3DP",
      "otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP",
      "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=12",
      "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&algorithm=MD5",
    ]) {
      expect(() => parseTotpInput(bad), bad).toThrow(TotpInputError);
    }
  });

  it("a sealed secret opens only with the same vault key and gives the same codes", async () => {
    const vaultKey = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
      "wrapKey",
      "unwrapKey",
    ]);
    const otherKey = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
      "wrapKey",
      "unwrapKey",
    ]);
    const s = {
      secret: new Uint8Array(RFC6238_SEEDS["SHA-1"]),
      algorithm: "SHA-1" as const,
      digits: 8,
      period: 30,
    };
    const sealed = await sealTotpSecret(vaultKey, s);
    expect(
      (await totpAt(await openTotpSecret(vaultKey, sealed, "SHA-1"), 59_000, 8, 30)).code,
    ).toBe("94287082");
    await expect(openTotpSecret(otherKey, sealed, "SHA-1")).rejects.toThrow();
  });
});
