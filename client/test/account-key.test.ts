import { describe, expect, it } from "vitest";
import {
  AccountKeyError,
  AccountKeyRollbackError,
  accountVaultKeys,
  kekOf,
  openAccountKey,
  rewrapAccountKey,
  rootsOf,
  sealAccountKey,
  unlockAccount,
  type AccountKeyIo,
  type AccountKeyWrap,
  type KeyFloor,
  type RootFor,
} from "../../core/crypto/account-key";
import {
  deriveVaultKeys,
  PBKDF2_ITERATIONS,
  passphraseRoot,
  rootVaultKeys,
  type VaultKeys,
} from "../../core/crypto/crypto";
import { openEntry, placeOf, sealEntry, type Place } from "../../core/crypto/envelope";

// The account key between the passphrase and the vault (core/crypto/account-key.ts). The wrap's
// rounds are held to the floor like any the server names, so these derive at 600,000 rounds.
const R = PBKDF2_ITERATIONS;
const USER = "user-alice";
const OLD = "the old master passphrase";
const NEW = "a brand new master passphrase";
const place: Place = placeOf(USER, { id: "entry-1", website: "bank.example" });
const secrets = { username: "alice", password: "pw-1", notes: "", category: "", totp: "" };
const none: KeyFloor = { keyVersion: 0, revision: 0 };

/** The server's side in memory: compare-and-set by revision, as src/domains/account-key/repo.ts. */
function server(start: AccountKeyWrap | null = null) {
  const s = { wrap: start, puts: 0 };
  const io: AccountKeyIo = {
    get: async () => s.wrap,
    put: async (w) => {
      s.puts++;
      const ok = s.wrap
        ? w.revision === s.wrap.revision + 1 && w.key_version >= s.wrap.key_version
        : w.revision === 1;
      if (!ok) return "conflict";
      s.wrap = w;
      return w;
    },
  };
  return { s, io };
}

/** The vault as before the account key: entries sealed under the passphrase-derived keys. */
const legacyOf =
  (env: Awaited<ReturnType<typeof sealEntry>> | null, version = 1) =>
  async (roots: RootFor) => {
    const keys = await rootVaultKeys(await roots(R), R, version);
    if (env) await openEntry(keys, place, env);
    return { keys, empty: env === null };
  };

const opens = async (keys: VaultKeys, env: Awaited<ReturnType<typeof sealEntry>>) =>
  (await openEntry(keys, place, env)).secrets.password;

describe("account key wrap", () => {
  it("opens for its user under the passphrase's key encryption key, and for nothing else", async () => {
    const kek = await kekOf(await passphraseRoot(OLD, USER, R));
    const raw = crypto.getRandomValues(new Uint8Array(64));
    const meta = { key_version: 2, revision: 3, kdf_iterations: R };
    const wrap = await sealAccountKey(kek, raw, USER, meta);
    expect(await openAccountKey(kek, USER, wrap)).toEqual(raw);
    // Another user's wrap served as this one's, or one relabelled to another version, rounds or revision.
    await expect(openAccountKey(kek, "user-bob", wrap)).rejects.toBeInstanceOf(AccountKeyError);
    for (const edit of [{ key_version: 3 }, { revision: 4 }, { kdf_iterations: R + 1 }])
      await expect(openAccountKey(kek, USER, { ...wrap, ...edit })).rejects.toBeInstanceOf(
        AccountKeyError,
      );
    const otherKek = await kekOf(await passphraseRoot(NEW, USER, R));
    await expect(openAccountKey(otherKek, USER, wrap)).rejects.toBeInstanceOf(AccountKeyError);
  });

  it("an existing vault moves over keeping its key's bytes: no entry changes and the wrap then opens it", async () => {
    const legacy = await deriveVaultKeys(OLD, USER);
    const env = await sealEntry(legacy, place, secrets);
    const { s, io } = server();
    const first = await unlockAccount({
      io,
      userId: USER,
      floor: none,
      roots: rootsOf(OLD, USER),
      legacy: legacyOf(env),
    });
    expect(first.step).toBe("migrated");
    expect(s.wrap).toMatchObject({ key_version: 1, revision: 1, kdf_iterations: R });
    const again = await unlockAccount({
      io,
      userId: USER,
      floor: { keyVersion: 1, revision: 1 },
      roots: rootsOf(OLD, USER),
      legacy: () => Promise.reject(new Error("not asked")),
    });
    expect(again.step).toBe("opened");
    expect(await opens(again.keys, env)).toBe("pw-1");
    // What it seals, the passphrase-derived keys open too: the same bytes.
    expect(await opens(legacy, await sealEntry(again.keys, place, secrets))).toBe("pw-1");
  });

  it("a vault with no entry yet wraps its passphrase keys' bytes too: what is already under them stays readable", async () => {
    const legacy = await deriveVaultKeys(OLD, USER);
    // Sealed before the first unlock (a sharing key, an attachment): under the passphrase's keys.
    const before = await sealEntry(legacy, place, secrets);
    const { s, io } = server();
    const made = await unlockAccount({
      io,
      userId: USER,
      floor: none,
      roots: rootsOf(OLD, USER),
      legacy: legacyOf(null),
    });
    expect(made.step).toBe("created");
    expect(s.wrap?.revision).toBe(1);
    const opened = await unlockAccount({
      io,
      userId: USER,
      floor: { keyVersion: 1, revision: 1 },
      roots: rootsOf(OLD, USER),
      legacy: legacyOf(null),
    });
    expect(opened.step).toBe("opened");
    expect(await opens(opened.keys, before)).toBe("pw-1");
  });

  it("a cut after the wrap is written but before the device records it still unlocks, with the same key", async () => {
    const legacy = await deriveVaultKeys(OLD, USER);
    const env = await sealEntry(legacy, place, secrets);
    const { s, io } = server();
    await expect(
      unlockAccount({
        io,
        userId: USER,
        floor: none,
        roots: rootsOf(OLD, USER),
        legacy: legacyOf(env),
        written: () => {
          throw new Error("cut");
        },
      }),
    ).rejects.toThrow("cut");
    expect(s.wrap?.revision).toBe(1);
    // Nothing was recorded on the device: its floor is as before.
    const next = await unlockAccount({
      io,
      userId: USER,
      floor: none,
      roots: rootsOf(OLD, USER),
      legacy: legacyOf(env),
    });
    expect(next.step).toBe("opened");
    expect(await opens(next.keys, env)).toBe("pw-1");
    expect(s.puts).toBe(1);
  });

  it("a cut before the wrap lands (or its answer lost) unlocks as before, and the next unlock moves it", async () => {
    const legacy = await deriveVaultKeys(OLD, USER);
    const env = await sealEntry(legacy, place, secrets);
    for (const landed of [false, true]) {
      const { s, io } = server();
      const put = io.put;
      io.put = async (w) => {
        if (landed) await put(w);
        throw new TypeError("Failed to fetch");
      };
      const cut = await unlockAccount({
        io,
        userId: USER,
        floor: none,
        roots: rootsOf(OLD, USER),
        legacy: legacyOf(env),
      });
      expect(cut.step).toBe("legacy");
      expect(cut.wrap).toBeNull();
      expect(await opens(cut.keys, env)).toBe("pw-1");
      expect(s.wrap !== null).toBe(landed);
      io.put = put;
      const next = await unlockAccount({
        io,
        userId: USER,
        floor: none,
        roots: rootsOf(OLD, USER),
        legacy: legacyOf(env),
      });
      expect(next.step).toBe(landed ? "opened" : "migrated");
      expect(await opens(next.keys, env)).toBe("pw-1");
    }
  });

  it("two devices moving at once: the second opens what the first wrote", async () => {
    const legacy = await deriveVaultKeys(OLD, USER);
    const env = await sealEntry(legacy, place, secrets);
    const { s, io } = server();
    const [a, b] = await Promise.all(
      [0, 1].map(() =>
        unlockAccount({
          io,
          userId: USER,
          floor: none,
          roots: rootsOf(OLD, USER),
          legacy: legacyOf(env),
        }),
      ),
    );
    expect([a!.step, b!.step].sort()).toEqual(["migrated", "opened"]);
    expect(s.wrap?.revision).toBe(1);
    expect(await opens(a!.keys, env)).toBe("pw-1");
    expect(await opens(b!.keys, env)).toBe("pw-1");
  });

  it("refuses another user's wrap, an older revision or key version than seen, and a wrap gone after one was seen", async () => {
    const legacy = await deriveVaultKeys(OLD, USER);
    const env = await sealEntry(legacy, place, secrets);
    const bob = server();
    await unlockAccount({
      io: bob.io,
      userId: "user-bob",
      floor: none,
      roots: rootsOf(OLD, "user-bob"),
      legacy: async (roots) => ({ keys: await rootVaultKeys(await roots(R), R, 1), empty: true }),
    });
    // The server hands Alice Bob's wrap: it does not open as hers, and her vault's entries say so too.
    const swapped = server(bob.s.wrap);
    await expect(
      unlockAccount({
        io: swapped.io,
        userId: USER,
        floor: none,
        roots: rootsOf(OLD, USER),
        legacy: legacyOf(env),
      }),
    ).rejects.toBeInstanceOf(AccountKeyError);
    expect(swapped.s.wrap).toBe(bob.s.wrap);

    const { s, io } = server();
    await unlockAccount({
      io,
      userId: USER,
      floor: none,
      roots: rootsOf(OLD, USER),
      legacy: legacyOf(env),
    });
    const first = s.wrap!;
    const { wrap: second } = await rewrapAccountKey(
      USER,
      { wrap: first, roots: rootsOf(OLD, USER) },
      { passphrase: NEW, iterations: R },
    );
    // A replay of revision 1 to a device that saw revision 2 (the old passphrase would open it).
    await expect(
      unlockAccount({
        io: server(first).io,
        userId: USER,
        floor: { keyVersion: 1, revision: second.revision },
        roots: rootsOf(OLD, USER),
        legacy: legacyOf(env),
      }),
    ).rejects.toBeInstanceOf(AccountKeyRollbackError);
    await expect(
      unlockAccount({
        io: server({ ...second, key_version: 0 }).io,
        userId: USER,
        floor: { keyVersion: 1, revision: 0 },
        roots: rootsOf(NEW, USER),
        legacy: legacyOf(env),
      }),
    ).rejects.toBeInstanceOf(AccountKeyRollbackError);
    // No wrap at all after this device saw one: not a way back to the passphrase-derived keys.
    await expect(
      unlockAccount({
        io: server().io,
        userId: USER,
        floor: { keyVersion: 1, revision: 1 },
        roots: rootsOf(OLD, USER),
        legacy: legacyOf(env),
      }),
    ).rejects.toBeInstanceOf(AccountKeyRollbackError);
  });

  it("a passphrase change wraps the same key again: the new passphrase opens every entry, the old one nothing", async () => {
    const legacy = await deriveVaultKeys(OLD, USER);
    const env = await sealEntry(legacy, place, secrets);
    const { s, io } = server();
    await unlockAccount({
      io,
      userId: USER,
      floor: none,
      roots: rootsOf(OLD, USER),
      legacy: legacyOf(env),
    });
    const { wrap } = await rewrapAccountKey(
      USER,
      { wrap: s.wrap!, roots: rootsOf(OLD, USER) },
      { passphrase: NEW, iterations: R },
    );
    expect(wrap).toMatchObject({ key_version: 1, revision: 2 });
    expect(await io.put(wrap)).toEqual(wrap);
    const floor = { keyVersion: 1, revision: 2 };
    const opened = await unlockAccount({
      io,
      userId: USER,
      floor,
      roots: rootsOf(NEW, USER),
      legacy: legacyOf(env),
    });
    expect(opened.step).toBe("opened");
    expect(await opens(opened.keys, env)).toBe("pw-1");
    await expect(
      unlockAccount({ io, userId: USER, floor, roots: rootsOf(OLD, USER), legacy: legacyOf(env) }),
    ).rejects.toBeInstanceOf(AccountKeyError);
    // The wrong current passphrase cannot make a new wrap.
    await expect(
      rewrapAccountKey(
        USER,
        { wrap, roots: rootsOf(OLD, USER) },
        { passphrase: "x".repeat(9), iterations: R },
      ),
    ).rejects.toBeInstanceOf(AccountKeyError);
    const raw = await openAccountKey(await kekOf(await passphraseRoot(NEW, USER, R)), USER, wrap);
    expect(await opens(await accountVaultKeys(raw, 1, R), env)).toBe("pw-1");
  });

  it("after a passphrase change made offline (every entry re-keyed), the new passphrase writes the next wrap; the old one opens nothing", async () => {
    const legacy = await deriveVaultKeys(OLD, USER);
    const { s, io } = server();
    await unlockAccount({
      io,
      userId: USER,
      floor: none,
      roots: rootsOf(OLD, USER),
      legacy: legacyOf(await sealEntry(legacy, place, secrets)),
    });
    // The offline change: the new passphrase's own keys at version 2, the entries under them.
    const rekeyed = await deriveVaultKeys(NEW, USER, R, 2);
    const env = await sealEntry(rekeyed, place, secrets);
    const healed = await unlockAccount({
      io,
      userId: USER,
      floor: { keyVersion: 1, revision: 1 },
      roots: rootsOf(NEW, USER),
      legacy: legacyOf(env, 2),
    });
    expect(healed.step).toBe("healed");
    expect(s.wrap).toMatchObject({ key_version: 2, revision: 2 });
    expect(await opens(healed.keys, env)).toBe("pw-1");
    await expect(
      unlockAccount({
        io,
        userId: USER,
        floor: { keyVersion: 2, revision: 2 },
        roots: rootsOf(OLD, USER),
        legacy: legacyOf(env, 2),
      }),
    ).rejects.toThrow();
  });
});
