import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { describe, expect, it } from "vitest";
import { base64url } from "../../src/kernel/base64";
import {
  AAGUID,
  authenticatorData,
  chooseAlg,
  clientDataJSON,
  coseKey,
  derSignature,
  FLAG,
  getAssertion,
  makeCredential,
  noneAttestation,
} from "../../core/authenticator/authenticator";
import {
  decodeCbor,
  encodeCbor,
  type CborMap,
  type CborValue,
} from "../../core/authenticator/cbor";
import { checkRpId } from "../../core/authenticator/rpid";
import { parsePasskeys } from "../../core/passkeys/stored";
import { parseSecrets } from "../../core/crypto/crypto";

const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (h: string) => new Uint8Array(h.match(/../g)!.map((x) => parseInt(x, 16)));

describe("CBOR (RFC 8949 Appendix A examples)", () => {
  const cases: [CborValue, string][] = [
    [0, "00"],
    [23, "17"],
    [24, "1818"],
    [100, "1864"],
    [1000, "1903e8"],
    [1000000, "1a000f4240"],
    [1000000000000, "1b000000e8d4a51000"],
    [-1, "20"],
    [-10, "29"],
    [-100, "3863"],
    [-1000, "3903e7"],
    [false, "f4"],
    [true, "f5"],
    ["", "60"],
    ["a", "6161"],
    ["IETF", "6449455446"],
    ["\u00fc", "62c3bc"],
    [new Uint8Array([1, 2, 3, 4]), "4401020304"],
    [[], "80"],
    [[1, 2, 3], "83010203"],
    [
      new Map([
        [1, 2],
        [3, 4],
      ]),
      "a201020304",
    ],
    [
      new Map<string, CborValue>([
        ["a", 1],
        ["b", [2, 3]],
      ]),
      "a26161016162820203",
    ],
  ];
  it.each(cases)("encodes and decodes %o as %s", (value, want) => {
    expect(hex(encodeCbor(value))).toBe(want);
    expect(decodeCbor(unhex(want)).value).toEqual(value);
  });

  it("sorts map keys canonically (CTAP2: shorter encoding first, then bytewise), whatever the insertion order", () => {
    const m: CborMap = new Map<number | string, CborValue>([
      ["fmt", 1],
      [-3, 2],
      [1, 3],
      ["a", 4],
      [-1, 5],
    ]);
    expect(hex(encodeCbor(m))).toBe("a5" + "0103" + "2005" + "2202" + "616104" + "63666d7401");
  });

  it("refuses floats, tags, indefinite lengths and truncated input", () => {
    for (const bad of ["f93c00", "c11a514b67b0", "9fff", "5f42", "4401"])
      expect(() => decodeCbor(unhex(bad))).toThrow();
  });
});

describe("COSE_Key (WebAuthn §6.5.1.1 examples)", () => {
  const x = unhex("65eda5a12577c2bae829437fe338701a10aaa375e1bb5b5de108de439c08551d");
  const y = unhex("1e52ed75701163f7f9e40ddf9f341b3dc9ba860af7e0ca7ca7e9eecd0084d19c");
  it("an ES256 key is {1: 2, 3: -7, -1: 1, -2: x, -3: y} in canonical CBOR", () => {
    const key = coseKey(
      { kty: "EC", crv: "P-256", x: base64url.encode(x), y: base64url.encode(y) },
      -7,
    );
    expect(hex(key)).toBe("a5010203262001215820" + hex(x) + "225820" + hex(y));
  });
  it("an Ed25519 key is {1: 1, 3: -8, -1: 6, -2: x}", () => {
    const key = coseKey({ kty: "OKP", crv: "Ed25519", x: base64url.encode(x) }, -8);
    expect(hex(key)).toBe("a4010103272006215820" + hex(x));
  });
  it("refuses a key of the wrong curve or size", () => {
    expect(() =>
      coseKey({ kty: "EC", crv: "P-384", x: base64url.encode(x), y: base64url.encode(y) }, -7),
    ).toThrow();
    expect(() =>
      coseKey({ kty: "OKP", crv: "Ed25519", x: base64url.encode(x.subarray(1)) }, -8),
    ).toThrow();
  });
});

describe("authenticatorData, attestation and client data (WebAuthn §6.1, §6.5.1, §8.7, §5.8.1)", () => {
  it("lays out rpIdHash, flags, counter, then AAGUID, id length, id and key", async () => {
    const id = new Uint8Array([9, 8, 7]);
    const key = new Uint8Array([0xa0]);
    const data = await authenticatorData("example.com", FLAG.UP | FLAG.UV, 0x01020304, {
      credentialId: id,
      publicKey: key,
    });
    const rpHash = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode("example.com")),
    );
    expect(hex(data.subarray(0, 32))).toBe(hex(rpHash));
    expect(data[32]).toBe(FLAG.UP | FLAG.UV | FLAG.AT);
    expect(hex(data.subarray(33, 37))).toBe("01020304");
    expect(hex(data.subarray(37, 53))).toBe(hex(AAGUID));
    expect(hex(data.subarray(53))).toBe("0003" + "090807" + "a0");
    const plain = await authenticatorData("example.com", FLAG.UP | FLAG.AT, 5);
    expect(plain.length).toBe(37);
    expect(plain[32]).toBe(FLAG.UP);
  });

  it("a none attestation is {fmt: 'none', attStmt: {}, authData}", () => {
    const obj = decodeCbor(noneAttestation(new Uint8Array([1, 2]))).value as CborMap;
    expect([...obj.keys()]).toEqual(["fmt", "attStmt", "authData"]);
    expect(obj.get("fmt")).toBe("none");
    expect((obj.get("attStmt") as CborMap).size).toBe(0);
    expect(obj.get("authData")).toEqual(new Uint8Array([1, 2]));
  });

  it("client data keeps the spec's member order, with topOrigin only for a cross-origin frame", () => {
    const challenge = new Uint8Array([1, 2, 3]);
    expect(
      new TextDecoder().decode(clientDataJSON("webauthn.get", challenge, "https://example.com")),
    ).toBe(
      '{"type":"webauthn.get","challenge":"AQID","origin":"https://example.com","crossOrigin":false}',
    );
    expect(
      new TextDecoder().decode(
        clientDataJSON(
          "webauthn.create",
          challenge,
          "https://a.example.com",
          "https://top.example",
        ),
      ),
    ).toBe(
      '{"type":"webauthn.create","challenge":"AQID","origin":"https://a.example.com","crossOrigin":true,"topOrigin":"https://top.example"}',
    );
  });

  it("turns an r || s signature into DER, with the sign byte where the high bit is set", () => {
    const r = new Uint8Array(32).fill(0x80);
    const s = new Uint8Array(32);
    s[31] = 1;
    const der = derSignature(new Uint8Array([...r, ...s]));
    expect(hex(der)).toBe("3026" + "022100" + hex(r) + "020101");
  });

  it("chooses ES256 when offered (or nothing is said), and no algorithm it cannot make", async () => {
    expect(await chooseAlg([])).toBe(-7);
    expect(
      await chooseAlg([
        { type: "public-key", alg: -257 },
        { type: "public-key", alg: -7 },
      ]),
    ).toBe(-7);
    expect(await chooseAlg([{ type: "public-key", alg: -257 }])).toBeNull();
  });

  it("follows the site's order of preference (§5.4): EdDSA first gets Ed25519, ES256 first gets ES256", async () => {
    const params = (...algs: number[]) => algs.map((alg) => ({ type: "public-key", alg }));
    expect(await chooseAlg(params(-8, -7, -257))).toBe(-8);
    expect(await chooseAlg(params(-257, -8))).toBe(-8);
    expect(await chooseAlg(params(-8))).toBe(-8);
    expect(await chooseAlg(params(-7, -8))).toBe(-7);
    // Another type than public-key says nothing.
    expect(await chooseAlg([{ type: "other", alg: -8 }, ...params(-7)])).toBe(-7);
  });

  it("an Ed25519 credential's attested key is an OKP COSE_Key (kty 1, alg -8, crv 6) whose x is its public key", async () => {
    const made = await makeCredential({
      rpId: "example.com",
      origin: "https://example.com",
      challenge: new Uint8Array(32),
      user: { id: new Uint8Array([1]), name: "ada", displayName: "Ada" },
      alg: -8,
      discoverable: true,
    });
    const att = decodeCbor(base64url.decode(made.credential.attestationObject)).value as CborMap;
    const authData = att.get("authData") as Uint8Array;
    const idLength = (authData[53]! << 8) | authData[54]!;
    const { value, end } = decodeCbor(authData, 55 + idLength);
    expect(end).toBe(authData.length);
    const key = value as CborMap;
    expect([...key.keys()].sort()).toEqual([-2, -1, 1, 3].sort());
    expect(key.get(1)).toBe(1);
    expect(key.get(3)).toBe(-8);
    expect(key.get(-1)).toBe(6);
    // The SPKI of an Ed25519 key is a fixed 12-byte header, then the 32-byte key (RFC 8410 §4).
    const spki = base64url.decode(made.credential.publicKey);
    expect(hex(spki.subarray(0, 12))).toBe("302a300506032b6570032100");
    expect(hex(key.get(-2) as Uint8Array)).toBe(hex(spki.subarray(12)));
    expect(made.passkey.private_key).toMatchObject({ kty: "OKP", crv: "Ed25519" });
  });
});

describe("the relying party's library accepts what the vault makes (@simplewebauthn/server)", () => {
  const origin = "https://login.example.com";
  for (const alg of [-7, -8] as const) {
    it(`registers and signs in with ${alg === -7 ? "ES256" : "Ed25519"}, the counter rising each time`, async () => {
      const reg = await generateRegistrationOptions({
        rpName: "Example",
        rpID: "example.com",
        userName: "ada@example.com",
        supportedAlgorithmIDs: [alg],
      });
      const made = await makeCredential({
        rpId: "example.com",
        origin,
        challenge: base64url.decode(reg.challenge),
        user: {
          id: base64url.decode(reg.user.id),
          name: reg.user.name,
          displayName: reg.user.displayName,
        },
        alg,
        discoverable: true,
      });
      const c = made.credential;
      const verified = await verifyRegistrationResponse({
        response: {
          id: c.id,
          rawId: c.id,
          type: "public-key",
          clientExtensionResults: {},
          response: {
            clientDataJSON: c.clientDataJSON,
            attestationObject: c.attestationObject,
            transports: ["internal", "hybrid"],
          },
        },
        expectedChallenge: reg.challenge,
        expectedOrigin: origin,
        expectedRPID: "example.com",
        requireUserVerification: true,
      });
      expect(verified.verified).toBe(true);
      const info = verified.registrationInfo!;
      expect(info.credentialDeviceType).toBe("multiDevice");
      expect(info.credentialBackedUp).toBe(true);
      expect(info.fmt).toBe("none");
      let counter = info.credential.counter;
      let passkey = made.passkey;
      for (let round = 1; round <= 2; round++) {
        const auth = await generateAuthenticationOptions({
          rpID: "example.com",
          userVerification: "required",
        });
        const { assertion, signCount } = await getAssertion(passkey, {
          origin,
          challenge: base64url.decode(auth.challenge),
        });
        const ok = await verifyAuthenticationResponse({
          response: {
            id: assertion.id,
            rawId: assertion.id,
            type: "public-key",
            clientExtensionResults: {},
            response: {
              clientDataJSON: assertion.clientDataJSON,
              authenticatorData: assertion.authenticatorData,
              signature: assertion.signature,
              userHandle: assertion.userHandle ?? undefined,
            },
          },
          expectedChallenge: auth.challenge,
          expectedOrigin: origin,
          expectedRPID: "example.com",
          credential: { id: info.credential.id, publicKey: info.credential.publicKey, counter },
          requireUserVerification: true,
        });
        expect(ok.verified).toBe(true);
        expect(ok.authenticationInfo.newCounter).toBe(round);
        expect(signCount).toBe(round);
        counter = ok.authenticationInfo.newCounter;
        passkey = { ...passkey, sign_count: signCount };
      }
      expect(assertionUser(passkey)).toBe(reg.user.id);
    });
  }

  it("a signature over another challenge, or a counter that went back, is refused", async () => {
    const reg = await generateRegistrationOptions({
      rpName: "Example",
      rpID: "example.com",
      userName: "bob",
    });
    const made = await makeCredential({
      rpId: "example.com",
      origin,
      challenge: base64url.decode(reg.challenge),
      user: { id: new Uint8Array([1]), name: "bob", displayName: "Bob" },
      alg: -7,
      discoverable: true,
    });
    const info = (
      await verifyRegistrationResponse({
        response: {
          id: made.credential.id,
          rawId: made.credential.id,
          type: "public-key",
          clientExtensionResults: {},
          response: {
            clientDataJSON: made.credential.clientDataJSON,
            attestationObject: made.credential.attestationObject,
          },
        },
        expectedChallenge: reg.challenge,
        expectedOrigin: origin,
        expectedRPID: "example.com",
      })
    ).registrationInfo!;
    const { assertion } = await getAssertion(made.passkey, {
      origin,
      challenge: new Uint8Array([7, 7, 7]),
    });
    const response = {
      id: assertion.id,
      rawId: assertion.id,
      type: "public-key" as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: assertion.clientDataJSON,
        authenticatorData: assertion.authenticatorData,
        signature: assertion.signature,
      },
    };
    await expect(
      verifyAuthenticationResponse({
        response,
        expectedChallenge: "AAAA",
        expectedOrigin: origin,
        expectedRPID: "example.com",
        credential: { ...info.credential, counter: 0 },
      }),
    ).rejects.toThrow();
    await expect(
      verifyAuthenticationResponse({
        response,
        expectedChallenge: "BwcH",
        expectedOrigin: origin,
        expectedRPID: "example.com",
        credential: { ...info.credential, counter: 5 },
      }),
    ).rejects.toThrow(/counter/i);
  });
});

const assertionUser = (p: { user_handle: string }) => p.user_handle;

describe("the rp id rule (WebAuthn Level 3 §5.1.3 and §5.1.4.1)", () => {
  it("allows the page's host and a registrable suffix of it", () => {
    expect(checkRpId("https://login.example.com/x", undefined)).toEqual({
      ok: true,
      rpId: "login.example.com",
      origin: "https://login.example.com",
    });
    expect(checkRpId("https://login.example.com", "example.com")).toMatchObject({
      ok: true,
      rpId: "example.com",
    });
    expect(checkRpId("https://a.b.example.co.uk", "example.co.uk")).toMatchObject({ ok: true });
    expect(checkRpId("http://localhost:8787/", "localhost")).toMatchObject({
      ok: true,
      origin: "http://localhost:8787",
    });
  });
  it("refuses another site, a sibling, a longer host, and a look-alike suffix", () => {
    expect(checkRpId("https://login.example.com", "evil.com")).toEqual({
      ok: false,
      reason: "other-site",
    });
    expect(checkRpId("https://login.example.com", "shop.example.com")).toEqual({
      ok: false,
      reason: "other-site",
    });
    expect(checkRpId("https://example.com", "login.example.com")).toEqual({
      ok: false,
      reason: "other-site",
    });
    expect(checkRpId("https://notexample.com", "example.com")).toEqual({
      ok: false,
      reason: "other-site",
    });
  });
  it("refuses a public suffix, private ones included", () => {
    expect(checkRpId("https://login.example.com", "com")).toEqual({
      ok: false,
      reason: "public-suffix",
    });
    expect(checkRpId("https://a.example.co.uk", "co.uk")).toEqual({
      ok: false,
      reason: "public-suffix",
    });
    expect(checkRpId("https://someone.github.io", "github.io")).toEqual({
      ok: false,
      reason: "public-suffix",
    });
    expect(checkRpId("https://someone.github.io", undefined)).toMatchObject({
      ok: true,
      rpId: "someone.github.io",
    });
  });
  it("refuses http (localhost excepted), IP addresses and malformed ids", () => {
    expect(checkRpId("http://example.com", "example.com")).toEqual({
      ok: false,
      reason: "insecure",
    });
    expect(checkRpId("https://127.0.0.1", undefined)).toEqual({
      ok: false,
      reason: "not-a-domain",
    });
    expect(checkRpId("https://example.com", "example.com.")).toEqual({
      ok: false,
      reason: "not-a-domain",
    });
    expect(checkRpId("https://example.com", "")).toEqual({ ok: false, reason: "not-a-domain" });
    expect(checkRpId("file:///etc/passwd", undefined)).toEqual({ ok: false, reason: "insecure" });
  });
});

describe("passkeys in the sealed payload", () => {
  it("parseSecrets keeps well-formed passkeys and drops the rest", () => {
    const good = {
      credential_id: "AQID",
      rp_id: "example.com",
      user_handle: "BAU",
      user_name: "ada",
      display_name: "Ada",
      alg: -7,
      private_key: { kty: "EC", crv: "P-256", x: "x", y: "y", d: "d" },
      sign_count: 3,
      discoverable: true,
      created_at: "2026-01-02T03:04:05.000Z",
    };
    const s = parseSecrets(
      JSON.stringify({
        username: "u",
        passkeys: [good, { ...good, alg: -257 }, { ...good, credential_id: "not b64url!" }, "junk"],
      }),
    );
    expect(s.passkeys).toEqual([good]);
    expect(parseSecrets(JSON.stringify({ username: "u" })).passkeys).toBeUndefined();
    expect(parsePasskeys([{ ...good, sign_count: -1 }])[0]!.sign_count).toBe(0);
  });
});
