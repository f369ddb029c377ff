import { describe, expect, it } from "vitest";
import {
  deriveExtractableVaultKey,
  deriveVaultKeys,
  type VaultKeys,
} from "../../core/crypto/crypto";
import {
  keyCheckMatches,
  makeKeyCheck,
  openEntry,
  placeOf,
  sealEntry,
} from "../../core/crypto/envelope";
import {
  unwrapVaultKey,
  wrapVaultKeyFor,
  type VaultKeyBinding,
} from "../../core/crypto/share-crypto";

// The emergency / dead man's switch wrap of the owner's vault key (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people",
// "Emergency access and dead man's switch keys"). Few PBKDF2 rounds: only tests may go below the floor.
const ROUNDS = 1000;
const OWNER = "owner-1";
const EC = { name: "ECDH", namedCurve: "P-256" } as const;

async function contactPair() {
  const pair = await crypto.subtle.generateKey(EC, true, ["deriveBits"]);
  const { x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { privateKey: pair.privateKey, jwk: { x: x!, y: y! } };
}

const bind = (over: Partial<VaultKeyBinding> = {}): VaultKeyBinding => ({
  purpose: "emergency",
  ownerId: OWNER,
  recipientEmail: "carl@example.test",
  salt: new Uint8Array(16).fill(7),
  ...over,
});

describe("wrapping the vault key for a contact", () => {
  it("the extractable copy is the key in memory: the same key check opens under both, a wrong passphrase's does not", async () => {
    const keys = await deriveVaultKeys("owner passphrase", OWNER, ROUNDS, 1);
    const check = await makeKeyCheck(keys, OWNER);
    expect(
      await keyCheckMatches(
        await deriveExtractableVaultKey("owner passphrase", OWNER, ROUNDS, 1),
        OWNER,
        check,
      ),
    ).toBe(true);
    expect(
      await keyCheckMatches(
        await deriveExtractableVaultKey("another passphrase", OWNER, ROUNDS, 1),
        OWNER,
        check,
      ),
    ).toBe(false);
    await expect(crypto.subtle.exportKey("raw", keys.vaultKey)).rejects.toThrow();
  });

  it("opens with the contact's private key into a key that opens the owner's entries in the owner's place", async () => {
    const keys = await deriveVaultKeys("owner passphrase", OWNER, ROUNDS, 1);
    const entry = { id: "e1", website: "bank.example" };
    const env = await sealEntry(keys, placeOf(OWNER, entry), {
      username: "u",
      password: "pw-1",
      notes: "",
      category: "",
      totp: "",
    });
    const carl = await contactPair();
    const copy = await deriveExtractableVaultKey("owner passphrase", OWNER, ROUNDS, 1);
    const wrapped = await wrapVaultKeyFor(copy.vaultKey, carl.jwk, bind());
    const vaultKey = await unwrapVaultKey(carl.privateKey, wrapped, bind());
    await expect(crypto.subtle.exportKey("raw", vaultKey)).rejects.toThrow();
    const opened: VaultKeys = { vaultKey, indexKey: keys.indexKey, version: 1 };
    expect((await openEntry(opened, placeOf(OWNER, entry), env)).secrets.password).toBe("pw-1");
    await expect(openEntry(opened, placeOf("someone-else", entry), env)).rejects.toThrow(
      /does not belong/,
    );
  });

  it("refuses another contact's key, owner, purpose, address or salt", async () => {
    const copy = await deriveExtractableVaultKey("owner passphrase", OWNER, ROUNDS, 1);
    const carl = await contactPair();
    const wrapped = await wrapVaultKeyFor(copy.vaultKey, carl.jwk, bind());
    const mallory = await contactPair();
    await expect(unwrapVaultKey(mallory.privateKey, wrapped, bind())).rejects.toThrow(
      /cannot be opened/,
    );
    for (const wrong of [
      { ownerId: "owner-2" },
      { purpose: "dead-man-switch" as const },
      { recipientEmail: "dana@example.test" },
      { salt: new Uint8Array(16) },
    ]) {
      await expect(unwrapVaultKey(carl.privateKey, wrapped, bind(wrong))).rejects.toThrow(
        /cannot be opened/,
      );
    }
  });
});
