import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { describe, expect, it } from "vitest";
import { base64url } from "../../src/kernel/base64";
import { parseImport, readImportFile, secretPayload } from "../../core/importers";
import { getAssertion, makeCredential } from "../../core/authenticator/authenticator";
import { pkcs8Of } from "../../core/passkeys/exchange";
import type { StoredPasskey } from "../../core/passkeys/stored";

// A Bitwarden JSON export (the shape its "Export vault" writes, hand-written here) whose login holds
// a passkey: the importer puts the passkey in the login's entry, every field kept.
const origin = "https://login.example.com";

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
    user: { id: base64url.decode(reg.user.id), name: "ada", displayName: "Ada Lovelace" },
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
  return { passkey: made.passkey, credential: v.registrationInfo!.credential };
}

async function exportOf(passkey: StoredPasskey) {
  return {
    encrypted: false,
    folders: [{ id: "f1", name: "Work" }],
    items: [
      {
        id: "5b2a0d1e-0000-4000-8000-000000000001",
        folderId: "f1",
        type: 1,
        reprompt: 0,
        name: "Example login",
        notes: "kept note",
        favorite: true,
        login: {
          uris: [{ match: null, uri: "https://login.example.com/" }],
          username: "ada",
          password: "pw-1",
          totp: null,
          fido2Credentials: [
            {
              credentialId: `b64.${passkey.credential_id}`,
              keyType: "public-key",
              keyAlgorithm: "ECDSA",
              keyCurve: "P-256",
              keyValue: base64url.encode(await pkcs8Of(passkey)),
              rpId: "example.com",
              userHandle: passkey.user_handle,
              userName: "ada",
              counter: "4",
              rpName: "Example",
              userDisplayName: "Ada Lovelace",
              discoverable: "true",
              creationDate: "2025-06-01T10:00:00.000Z",
            },
            {
              credentialId: "00112233-4455-6677-8899-aabbccddeeff",
              keyType: "public-key",
              keyAlgorithm: "ECDSA",
              keyCurve: "P-256",
              keyValue: "AAAA",
              rpId: "example.com",
              userHandle: "AQ",
              userName: "ada",
              counter: "0",
              discoverable: "false",
              creationDate: "2025-06-01T10:00:00.000Z",
            },
          ],
        },
      },
      // A passkey-only login (no username or password in Bitwarden): its passkey is its content.
      {
        id: "5b2a0d1e-0000-4000-8000-000000000002",
        type: 1,
        name: "Only a passkey",
        login: {
          uris: [],
          username: null,
          password: null,
          fido2Credentials: [
            {
              credentialId: "00112233-4455-6677-8899-aabbccddeeff",
              keyValue: base64url.encode(await pkcs8Of(passkey)),
              rpId: "shop.example",
              userHandle: "AQID",
              userName: "",
              userDisplayName: "",
              counter: "0",
              discoverable: "false",
            },
          ],
        },
      },
    ],
  };
}

describe("a Bitwarden JSON export's passkeys", () => {
  it("land in their logins' entries with every field, and sign in at the site they were made for", async () => {
    const { passkey, credential } = await registered();
    const file = new TextEncoder().encode(JSON.stringify(await exportOf(passkey)));
    const out = await readImportFile(file);
    expect(out.format).toBe("source_mgr_1");
    expect(out.skipped).toEqual([]);
    const [login, only] = out.credentials;
    expect(login).toMatchObject({
      name: "Example login",
      url: "https://login.example.com/",
      website: "login.example.com",
      username: "ada",
      password: "pw-1",
      notes: "kept note",
      folder: "Work",
      favorite: true,
    });
    // The second credential of the login has an unreadable key: said, not silently dropped.
    expect(login!.changes).toEqual(["a passkey not imported (its key cannot be read)"]);
    expect(login!.passkeys).toEqual([
      {
        credential_id: passkey.credential_id,
        rp_id: "example.com",
        rp_name: "Example",
        user_handle: passkey.user_handle,
        user_name: "ada",
        display_name: "Ada Lovelace",
        alg: -7,
        private_key: {
          kty: "EC",
          crv: "P-256",
          x: passkey.private_key.x,
          y: passkey.private_key.y,
          d: passkey.private_key.d,
        },
        sign_count: 4,
        discoverable: true,
        created_at: "2025-06-01T10:00:00.000Z",
      },
    ]);
    // The GUID id is its 16 bytes; a missing date is the import's time; "false" is not discoverable.
    expect(only!.passkeys![0]).toMatchObject({
      credential_id: base64url.encode(
        new Uint8Array([
          0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
          0xff,
        ]),
      ),
      rp_id: "shop.example",
      user_handle: "AQID",
      sign_count: 0,
      discoverable: false,
    });
    expect(only!.name).toBe("Only a passkey");
    // The key is never in the plaintext fields the preview and the payload's login part use.
    expect(JSON.stringify(secretPayload(login!))).not.toContain(passkey.private_key.d!);

    const auth = await generateAuthenticationOptions({ rpID: "example.com" });
    const { assertion } = await getAssertion(login!.passkeys![0]!, {
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
      credential: { ...credential, counter: 4 },
    });
    // Counter 4 came in with the passkey: the next assertion says 5, which the site accepts.
    expect(r).toMatchObject({ verified: true, authenticationInfo: { newCounter: 5 } });
  });

  it("the synchronous reader, which cannot import keys, says the passkeys are left out", async () => {
    const { passkey } = await registered();
    const out = parseImport(JSON.stringify(await exportOf(passkey)), "source_mgr_1");
    expect(out.credentials[0]!.passkeys).toBeUndefined();
    expect(out.credentials[0]!.changes).toEqual([
      "2 passkeys not imported (read only when the file is opened on the Import page)",
    ]);
    // Without its passkey the passkey-only login holds nothing: skipped with the reason.
    expect(out.skipped).toEqual([
      {
        name: "Only a passkey",
        reason: "nothing to store: no username, password, notes, TOTP or fields",
      },
    ]);
  });
});
