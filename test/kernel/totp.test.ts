import { describe, expect, it } from "vitest";
import {
  base32Decode,
  base32Encode,
  checkTotp,
  codeOfField,
  hotp,
  newTotpSecret,
  normalizeAlgorithm,
  openTotpSecret,
  otpauthUri,
  parseTotpInput,
  sealTotpSecret,
  totpAt,
  totpCode,
  TotpInputError,
} from "../../src/kernel/totp";
import { RFC6238_SEEDS, RFC6238_VECTORS, type RefAlgorithm } from "../support/rfc6238";

const ALGORITHMS: RefAlgorithm[] = ["SHA-1", "SHA-256", "SHA-512"];
const key = (alg: RefAlgorithm) =>
  crypto.subtle.importKey(
    "raw",
    new Uint8Array(RFC6238_SEEDS[alg]),
    { name: "HMAC", hash: alg },
    false,
    ["sign"],
  );
const params = (alg: RefAlgorithm) => ({
  secret: base32Encode(RFC6238_SEEDS[alg]),
  algorithm: normalizeAlgorithm(alg)!,
  digits: 8,
  period: 30,
});

describe("TOTP (RFC 6238 appendix B, RFC 4226 appendix D)", () => {
  it.each(RFC6238_VECTORS)(
    "time $time: the code from a key and from a base32 secret (SHA-1, SHA-256, SHA-512)",
    async ({ time, codes }) => {
      for (const alg of ALGORITHMS) {
        expect((await totpAt(await key(alg), time * 1000, 8, 30)).code).toBe(codes[alg]);
        expect(await totpCode(params(alg), time)).toBe(codes[alg]);
      }
    },
  );

  it("RFC 4226 HOTP values for counters 0 and 9", async () => {
    expect(await hotp(await key("SHA-1"), 0, 6)).toBe("755224");
    expect(await hotp(await key("SHA-1"), 9, 6)).toBe("520489");
  });

  it("seconds left run from period down to 1", async () => {
    expect((await totpAt(await key("SHA-1"), 60_000, 6, 30)).remaining).toBe(30);
    expect((await totpAt(await key("SHA-1"), 89_999, 6, 30)).remaining).toBe(1);
  });

  it("the check accepts every vector at its time and refuses it two steps later", async () => {
    for (const v of RFC6238_VECTORS) {
      for (const alg of ALGORITHMS) {
        expect(await checkTotp(params(alg), v.codes[alg], v.time)).toEqual({
          valid: true,
          timeStep: Math.floor(v.time / 30),
        });
        expect((await checkTotp(params(alg), v.codes[alg], v.time + 60)).valid).toBe(false);
      }
    }
  });

  it("the check's window is one step either side, and it names the step that matched", async () => {
    const p = params("SHA-1");
    const code = RFC6238_VECTORS[1]!.codes["SHA-1"];
    const t = RFC6238_VECTORS[1]!.time;
    const step = Math.floor(t / 30);
    expect(await checkTotp(p, code, t + 30)).toEqual({ valid: true, timeStep: step });
    expect(await checkTotp(p, code, t - 30)).toEqual({ valid: true, timeStep: step });
    expect((await checkTotp(p, code, t + 30, 0)).valid).toBe(false);
    expect((await checkTotp(p, code.slice(1), t)).valid).toBe(false);
    expect((await checkTotp(p, "1234567a", t)).valid).toBe(false);
  });

  it("refuses secrets under 80 bits for codes as for input", async () => {
    const short = base32Encode(new Uint8Array(9));
    await expect(totpCode({ ...params("SHA-1"), secret: short }, 59)).rejects.toThrow(
      TotpInputError,
    );
    expect(() => parseTotpInput(short)).toThrow(TotpInputError);
  });
});

describe("secrets and URIs", () => {
  it("base32 round-trips, ignoring case, spaces, dashes and padding", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(20));
    expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
    expect(base32Decode("jbsw-y3dp ehpk3pxp====")).toEqual(base32Decode("JBSWY3DPEHPK3PXP"));
    expect(newTotpSecret()).toMatch(/^[A-Z2-7]{32}$/);
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

  it("the URI it writes is read back with the same secret, issuer and account", () => {
    const secret = newTotpSecret();
    const uri = otpauthUri("Credential Vault", "alice@example.test", secret);
    expect(parseTotpInput(uri)).toMatchObject({
      secret: base32Decode(secret),
      algorithm: "SHA-1",
      digits: 6,
      period: 30,
      issuer: "Credential Vault",
      account: "alice@example.test",
    });
  });

  it("a field's current code: a secret or a URI gives the vector, anything else none", async () => {
    const sha1 = base32Encode(RFC6238_SEEDS["SHA-1"]);
    const secret = base32Encode(RFC6238_SEEDS["SHA-256"]);
    expect(await codeOfField(sha1.toLowerCase(), 59_000)).toBe("287082");
    expect(
      await codeOfField(`otpauth://totp/x?secret=${secret}&algorithm=SHA256&digits=8`, 59_000),
    ).toBe("46119246");
    expect(await codeOfField(`otpauth://hotp/x?secret=${secret}`, 59_000)).toBeNull();
    expect(await codeOfField("not a secret", 59_000)).toBeNull();
  });

  it("a sealed secret opens only with the same vault key and gives the same codes", async () => {
    const aesKey = async () =>
      (await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
        "wrapKey",
        "unwrapKey",
      ])) as CryptoKey;
    const vaultKey = await aesKey();
    const otherKey = await aesKey();
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
