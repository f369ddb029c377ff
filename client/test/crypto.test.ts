import { describe, expect, it } from "vitest";
import {
  blindIndexes,
  DecryptionError,
  deriveVaultKeys,
  domainOf,
  plainTokens,
  queryTokens,
  type EntrySecrets,
  type Envelope,
  type VaultKeys,
} from "../../core/crypto/crypto";
import {
  keyCheckMatches,
  makeKeyCheck,
  openEntry,
  rewrapItemKey,
  sealEntry,
  type Place,
} from "../../core/crypto/envelope";
import { fromBase64 } from "../../src/kernel/base64";

const PLACE: Place = { entryId: "entry-1", userId: "user-1", host: "example.com", scheme: "https" };
const encryptEntry = (keys: VaultKeys, s: EntrySecrets) => sealEntry(keys, PLACE, s);
const decryptEntry = async (keys: VaultKeys, env: Envelope) =>
  (await openEntry(keys, PLACE, env)).secrets;

// Fewer PBKDF2 rounds keep the unit tests quick; one test runs the real count.
const FAST = 1_000;
const secrets = {
  username: "alice@example.test",
  password: "p@ss wörd ✓",
  notes: "line 1\nline 2",
  category: "work",
  totp: "JBSWY3DPEHPK3PXP",
};

describe("client crypto", () => {
  it("round-trips an entry's secrets through the V3 envelope", async () => {
    const keys = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    const env = await encryptEntry(keys, secrets);
    expect(await decryptEntry(keys, env)).toEqual(secrets);
    // Magic (4), then IV (12 bytes), ciphertext and the 16-byte tag; the wrap also has a 9-byte
    // header (key version, KDF id, rounds) and a 32-byte key.
    expect(fromBase64(env.wrapped_item_key).length).toBe(4 + 9 + 12 + 32 + 16);
    expect(fromBase64(env.encrypted_data).length).toBe(
      4 + 12 + new TextEncoder().encode(JSON.stringify(secrets)).length + 16,
    );
  });

  it("derives the same keys from the same passphrase and user on any device", async () => {
    const a = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    const b = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    expect(await decryptEntry(b, await encryptEntry(a, secrets))).toEqual(secrets);
  });

  it("refuses a wrong passphrase, another user's salt and a tampered ciphertext", async () => {
    const keys = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    const env = await encryptEntry(keys, secrets);
    await expect(
      decryptEntry(await deriveVaultKeys("correct horse batterx", "user-1", FAST), env),
    ).rejects.toBeInstanceOf(DecryptionError);
    await expect(
      decryptEntry(await deriveVaultKeys("correct horse battery", "user-2", FAST), env),
    ).rejects.toBeInstanceOf(DecryptionError);
    const bytes = fromBase64(env.encrypted_data);
    bytes[bytes.length - 1] ^= 1;
    await expect(
      decryptEntry(keys, { ...env, encrypted_data: btoa(String.fromCharCode(...bytes)) }),
    ).rejects.toBeInstanceOf(DecryptionError);
  });

  it("key check: only the vault key that made it matches; a tampered one matches nothing", async () => {
    const keys = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    const check = await makeKeyCheck(keys, "user-1");
    expect(await keyCheckMatches(keys, "user-1", check)).toBe(true);
    expect(
      await keyCheckMatches(
        await deriveVaultKeys("correct horse batterx", "user-1", FAST),
        "user-1",
        check,
      ),
    ).toBe(false);
    const bytes = fromBase64(check.encrypted_data);
    bytes[bytes.length - 1] ^= 1;
    expect(
      await keyCheckMatches(keys, "user-1", {
        ...check,
        encrypted_data: btoa(String.fromCharCode(...bytes)),
      }),
    ).toBe(false);
  });

  it("re-wraps an item key for a new vault key without touching the encrypted data", async () => {
    const from = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    const to = await deriveVaultKeys("a new passphrase", "user-1", FAST, 2);
    const env = await encryptEntry(from, secrets);
    const moved = {
      ...env,
      wrapped_item_key: await rewrapItemKey(from, to, PLACE, env.wrapped_item_key),
    };
    expect(moved.encrypted_data).toBe(env.encrypted_data);
    expect(await decryptEntry(to, moved)).toEqual(secrets);
    await expect(decryptEntry(from, moved)).rejects.toBeInstanceOf(DecryptionError);
    await expect(rewrapItemKey(to, from, PLACE, env.wrapped_item_key)).rejects.toBeInstanceOf(
      DecryptionError,
    );
  });

  it("uses a fresh item key and IV per encryption", async () => {
    const keys = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    const [a, b] = [await encryptEntry(keys, secrets), await encryptEntry(keys, secrets)];
    expect(a.wrapped_item_key).not.toBe(b.wrapped_item_key);
    expect(a.encrypted_data).not.toBe(b.encrypted_data);
  });

  it("keeps the vault keys non-extractable", async () => {
    const keys = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    expect(keys.vaultKey.extractable).toBe(false);
    expect(keys.indexKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey("raw", keys.vaultKey)).rejects.toThrow();
  });

  it("makes blind indexes deterministic per key and different across keys", async () => {
    const k1 = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    const k2 = await deriveVaultKeys("another passphrase!", "user-1", FAST);
    const fields = { name: "GitHub", website: "https://www.GitHub.com/login", username: "Alice" };
    const a = await blindIndexes(k1, fields);
    const again = await blindIndexes(k1, {
      name: " github ",
      website: "github.com",
      username: "alice",
    });
    const other = await blindIndexes(k2, fields);
    expect(a.name_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(again.name_hash).toBe(a.name_hash);
    expect(again.username_hash).toBe(a.username_hash);
    expect(again.domain_hash).toBe(a.domain_hash);
    expect(other.name_hash).not.toBe(a.name_hash);
    expect(other.domain_hash).not.toBe(a.domain_hash);
    expect(a.name_hash).not.toBe(a.username_hash);
  });

  it("finds an entry by hashed query words and word beginnings, and only by them", async () => {
    const keys = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    const { search_tokens } = await blindIndexes(keys, {
      name: "Work mail",
      website: "mail.example.org",
      username: "alice.smith",
    });
    const has = async (q: string) =>
      (await queryTokens(keys, q)).every((t) => search_tokens.includes(t));
    expect(await has("work")).toBe(true);
    expect(await has("ali")).toBe(true);
    expect(await has("MAIL smith")).toBe(true);
    expect(await has("example")).toBe(true);
    expect(await has("bob")).toBe(false);
    expect(await has("ork")).toBe(false);
    expect(search_tokens.every((t) => /^[0-9a-f]{64}$/.test(t))).toBe(true);
    expect(search_tokens.join()).not.toContain("alice");
  });

  it("normalises domains and words the same way on every side", () => {
    expect(domainOf("https://www.Example.com:8443/path?q")).toBe("example.com");
    expect(domainOf("sub.example.co.uk")).toBe("sub.example.co.uk");
    expect(domainOf("")).toBe("");
    expect(plainTokens("Ab-cd")).toEqual(["ab", "cd"]);
  });

  it("derives with 600,000 PBKDF2 iterations by default in reasonable time", async () => {
    const started = Date.now();
    const keys = await deriveVaultKeys("correct horse battery", "user-1");
    const fast = await deriveVaultKeys("correct horse battery", "user-1", FAST);
    await expect(decryptEntry(fast, await encryptEntry(keys, secrets))).rejects.toBeInstanceOf(
      DecryptionError,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
