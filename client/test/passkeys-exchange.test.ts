import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { describe, expect, it } from "vitest";
import { base64url } from "../../src/kernel/base64";
import { getAssertion, makeCredential } from "../../core/authenticator/authenticator";
import {
  bitwardenCredentialId,
  fromBitwarden,
  fromCxf,
  isCxf,
  pkcs8Of,
  toCxfItem,
} from "../../core/passkeys/exchange";

const origin = "https://login.example.com";

/** A passkey registered at a relying party (its library verified it), and what the party keeps. */
async function registered() {
  const reg = await generateRegistrationOptions({
    rpName: "Example",
    rpID: "example.com",
    userName: "ada",
  });
  const made = await makeCredential({
    rpId: "example.com",
    origin,
    challenge: base64url.decode(reg.challenge),
    user: { id: base64url.decode(reg.user.id), name: "ada", displayName: "Ada" },
    alg: -7,
    discoverable: true,
  });
  const c = made.credential;
  const v = await verifyRegistrationResponse({
    response: {
      id: c.id,
      rawId: c.id,
      type: "public-key",
      clientExtensionResults: {},
      response: { clientDataJSON: c.clientDataJSON, attestationObject: c.attestationObject },
    },
    expectedChallenge: reg.challenge,
    expectedOrigin: origin,
    expectedRPID: "example.com",
  });
  return { passkey: made.passkey, credential: v.registrationInfo!.credential, userId: reg.user.id };
}

async function signsIn(
  passkey: Parameters<typeof getAssertion>[0],
  credential: Awaited<ReturnType<typeof registered>>["credential"],
) {
  const auth = await generateAuthenticationOptions({ rpID: "example.com" });
  const { assertion } = await getAssertion(passkey, {
    origin,
    challenge: base64url.decode(auth.challenge),
  });
  const r = await verifyAuthenticationResponse({
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
    credential,
  });
  return r.verified;
}

describe("CXF (Credential Exchange Format) passkeys", () => {
  it("imports a file's logins and passkeys, and an imported passkey signs in at the site it was made for", async () => {
    const { passkey, credential, userId } = await registered();
    const doc = {
      version: { major: 1, minor: 0 },
      exporterRpId: "other-manager.example",
      exporterDisplayName: "Other manager",
      timestamp: 1760000000,
      accounts: [
        {
          id: "acc",
          username: "ada",
          email: "ada@example.com",
          collections: [],
          items: [
            {
              id: "aXRlbS0x",
              creationAt: 1750000000,
              modifiedAt: 1750000000,
              title: "Example",
              scope: { urls: ["https://login.example.com/"], androidApps: [] },
              credentials: [
                {
                  type: "basic-auth",
                  username: { fieldType: "string", value: "ada" },
                  password: { fieldType: "concealed-string", value: "pw-1" },
                },
                {
                  type: "passkey",
                  credentialId: passkey.credential_id,
                  rpId: "example.com",
                  username: "ada",
                  userDisplayName: "Ada",
                  userHandle: userId,
                  key: base64url.encode(await pkcs8Of(passkey)),
                },
              ],
            },
            { id: "aXRlbS0y", creationAt: 1, modifiedAt: 1, title: "Empty", credentials: [] },
            {
              id: "aXRlbS0z",
              creationAt: 1,
              modifiedAt: 1,
              title: "Broken key",
              credentials: [
                {
                  type: "passkey",
                  credentialId: "AQID",
                  rpId: "x.example",
                  username: "b",
                  userDisplayName: "B",
                  userHandle: "AQ",
                  key: "AAAA",
                },
              ],
            },
          ],
        },
      ],
    };
    expect(isCxf(doc)).toBe(true);
    const { entries, skipped } = await fromCxf(JSON.parse(JSON.stringify(doc)));
    expect(skipped).toBe(3); // the empty item, the broken key, and then its now-empty item
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      name: "Example",
      url: "https://login.example.com/",
      username: "ada",
      password: "pw-1",
    });
    const imported = entries[0]!.passkeys[0]!;
    expect(imported).toMatchObject({
      credential_id: passkey.credential_id,
      rp_id: "example.com",
      user_handle: userId,
      user_name: "ada",
      display_name: "Ada",
      alg: -7,
      created_at: new Date(1750000000 * 1000).toISOString(),
    });
    expect(await signsIn(imported, credential)).toBe(true);
  });

  it("exports an entry as a CXF item that imports back to the same passkey", async () => {
    const { passkey, credential } = await registered();
    const item = await toCxfItem({
      id: "e1",
      name: "Example",
      url: "https://example.com",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-02T00:00:00.000Z",
      username: "ada",
      password: "pw",
      notes: "",
      passkeys: [passkey],
    });
    const back = await fromCxf({ version: { major: 1, minor: 0 }, accounts: [{ items: [item] }] });
    expect(back.entries[0]!.passkeys[0]!.private_key.d).toBe(passkey.private_key.d);
    expect(await signsIn(back.entries[0]!.passkeys[0]!, credential)).toBe(true);
  });

  it("refuses a document that is not CXF", async () => {
    await expect(fromCxf({ items: [] })).rejects.toThrow(/Credential Exchange/);
  });
});

describe("Bitwarden JSON fido2Credentials", () => {
  it("reads GUID and b64. credential ids", () => {
    expect([...bitwardenCredentialId("00112233-4455-6677-8899-aabbccddeeff")]).toEqual([
      0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
      0xff,
    ]);
    expect([...bitwardenCredentialId("b64.AQID")]).toEqual([1, 2, 3]);
    expect(() => bitwardenCredentialId("nope")).toThrow();
  });

  it("imports a credential with its counter and discoverable flag, and it signs in", async () => {
    const { passkey, credential } = await registered();
    const bw = {
      credentialId: `b64.${passkey.credential_id}`,
      keyType: "public-key",
      keyAlgorithm: "ECDSA",
      keyCurve: "P-256",
      keyValue: base64url.encode(await pkcs8Of(passkey)),
      rpId: "example.com",
      userHandle: passkey.user_handle,
      userName: "ada",
      counter: "0",
      rpName: "Example",
      userDisplayName: "Ada",
      discoverable: "false",
      creationDate: "2025-06-01T10:00:00.000Z",
    };
    const p = (await fromBitwarden(bw))!;
    expect(p).toMatchObject({
      credential_id: passkey.credential_id,
      rp_id: "example.com",
      rp_name: "Example",
      sign_count: 0,
      discoverable: false,
      created_at: "2025-06-01T10:00:00.000Z",
    });
    expect(await signsIn(p, credential)).toBe(true);
    expect(await fromBitwarden({ ...bw, keyValue: "AAAA" })).toBeNull();
    expect(await fromBitwarden({ ...bw, counter: "7" }).then((x) => x!.sign_count)).toBe(7);
  });
});
