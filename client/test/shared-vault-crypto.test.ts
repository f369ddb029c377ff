import { describe, expect, it } from "vitest";
import { fromBase64 } from "../../src/kernel/base64";
import {
  DecryptionError,
  KeyRollbackError,
  MisplacedEnvelopeError,
  openEntry,
  placeOf,
  wrapHeader,
  type EntrySecrets,
} from "../../core/crypto";
import {
  newVaultKey,
  openMemberCopy,
  openVaultEntry,
  openVaultName,
  sealVaultEntry,
  sealVaultName,
  sharedVaultKeys,
  vaultPlace,
  wrapVaultKeyForMember,
} from "../../core/vaults";

// A shared vault's crypto as docs/crypto.md ("Shared vaults") defines it: members' copies bound to
// (vault, key version, member), entries bound to (entry, vault, host), the name bound to the vault.

const EC = { name: "ECDH", namedCurve: "P-256" } as const;
async function person() {
  const pair = await crypto.subtle.generateKey(EC, true, ["deriveBits"]);
  const { x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { privateKey: pair.privateKey, publicKey: { x: x!, y: y! } };
}
const raw = async (k: CryptoKey) => new Uint8Array(await crypto.subtle.exportKey("raw", k));
const secrets = (password: string): EntrySecrets => ({
  username: "ann@family.test",
  password,
  notes: "",
  category: "",
  totp: "",
});
const copy = { vaultId: "vlt_a", keyVersion: 2, memberUserId: "user-b" };

describe("shared vault keys: members' copies", () => {
  it("a member's copy opens with their private key and gives the same vault key", async () => {
    const b = await person();
    const key = await newVaultKey();
    const wrapped = await wrapVaultKeyForMember(key, b.publicKey, copy);
    // The person-wrap layout: ephemeral P-256 point (65 bytes, uncompressed) || IV(12) || wrap.
    const bytes = fromBase64(wrapped);
    expect(bytes[0]).toBe(0x04);
    expect(bytes.length).toBe(65 + 12 + 32 + 16);
    const opened = await openMemberCopy(b.privateKey, wrapped, copy);
    expect(await raw(opened)).toEqual(await raw(key));
  });

  it("refuses a copy for another vault, key version or member, or for another person's key", async () => {
    const b = await person();
    const c = await person();
    const wrapped = await wrapVaultKeyForMember(await newVaultKey(), b.publicKey, copy);
    for (const other of [
      { ...copy, vaultId: "vlt_other" },
      { ...copy, keyVersion: 1 },
      { ...copy, memberUserId: "user-c" },
    ])
      await expect(openMemberCopy(b.privateKey, wrapped, other)).rejects.toBeInstanceOf(
        DecryptionError,
      );
    await expect(openMemberCopy(c.privateKey, wrapped, copy)).rejects.toBeInstanceOf(
      DecryptionError,
    );
  });
});

describe("shared vault entries: bound to (entry, vault, host)", () => {
  const entry = { id: "e1", website: "bank.example", url: "https://bank.example/login" };

  it("round trip; the wrap header carries the vault's key version", async () => {
    const keys = await sharedVaultKeys(await newVaultKey(), 3);
    const env = await sealVaultEntry(keys, "vlt_a", entry, secrets("pw-1"));
    expect(wrapHeader(env.wrapped_item_key)).toEqual({ keyVersion: 3, iterations: 0 });
    const opened = await openVaultEntry(keys, "vlt_a", { ...entry, ...env });
    expect(opened.password).toBe("pw-1");
    expect(vaultPlace("vlt_a", entry)).toEqual({
      entryId: "e1",
      userId: "vault:vlt_a",
      host: "bank.example",
      scheme: "https",
    });
  });

  it("refuses the blob in another vault, entry, host, or a personal vault's place", async () => {
    const keys = await sharedVaultKeys(await newVaultKey(), 1);
    const env = await sealVaultEntry(keys, "vlt_a", entry, secrets("pw-1"));
    // Thunks, each opened only when awaited: a rejection made before its turn would be unhandled.
    const moved = [
      () => openVaultEntry(keys, "vlt_b", { ...entry, ...env }),
      () => openVaultEntry(keys, "vlt_a", { ...entry, id: "e2", ...env }),
      () => openVaultEntry(keys, "vlt_a", { ...entry, website: "evil.example", url: null, ...env }),
      () => openEntry(keys, placeOf("vlt_a", entry), env),
    ];
    for (const open of moved) await expect(open()).rejects.toBeInstanceOf(MisplacedEnvelopeError);
  });

  it("an entry under an older key version than the one in hand is refused (rotation fence)", async () => {
    const old = await sharedVaultKeys(await newVaultKey(), 1);
    const env = await sealVaultEntry(old, "vlt_a", entry, secrets("pw-1"));
    const current = await sharedVaultKeys(await newVaultKey(), 2);
    await expect(openVaultEntry(current, "vlt_a", { ...entry, ...env })).rejects.toBeInstanceOf(
      KeyRollbackError,
    );
  });

  it("members derive the same blind-index key from the same vault key", async () => {
    const key = await newVaultKey();
    const again = await crypto.subtle.importKey("raw", await raw(key), "AES-GCM", true, [
      "encrypt",
      "decrypt",
      "wrapKey",
      "unwrapKey",
    ]);
    const sign = async (k: CryptoKey) =>
      new Uint8Array(
        await crypto.subtle.sign("HMAC", (await sharedVaultKeys(k, 1)).indexKey, new Uint8Array(4)),
      );
    expect(await sign(again)).toEqual(await sign(key));
  });
});

describe("shared vault name", () => {
  it("opens only for the vault it was sealed for", async () => {
    const key = await newVaultKey();
    const sealed = await sealVaultName(key, "vlt_a", "Family");
    expect(await openVaultName(key, "vlt_a", sealed)).toBe("Family");
    await expect(openVaultName(key, "vlt_b", sealed)).rejects.toBeInstanceOf(DecryptionError);
  });
});
