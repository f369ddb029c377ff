import { describe, expect, it } from "vitest";
import {
  acceptKdf,
  deriveVaultKeys,
  encryptLegacyEntry,
  KDF_FLOOR,
  KdfRefusedError,
} from "../../core/crypto/crypto";
import {
  bindsScheme,
  isBound,
  KeyRollbackError,
  LegacyRefusedError,
  MisplacedEnvelopeError,
  NewerKeyError,
  openEntry,
  placeOf,
  rewrapItemKey,
  sealEntry,
  wrapHeader,
  type Place,
} from "../../core/crypto/envelope";
import { sealEntryV2 } from "./support/envelope-v2";
import type { ApiClient } from "../../core/api/api";
import {
  FirstUseDeclined,
  KeyChangedError,
  trustedContactKey,
  type FirstUseAnswer,
} from "../src/keys/contact-keys";
import { fingerprint, type PinResult, type TrustStore } from "../../core/crypto/trust";
import { fromBase64, toBase64 } from "../../src/kernel/base64";

// docs/decisions/crypto.md, "Crypto: the clients hold against a malicious server": envelopes bound to entry, owner, version and host; key versions; the KDF floor.
const FAST = 1_000;
const secrets = { username: "alice", password: "bank-secret", notes: "", category: "", totp: "" };
const bank: Place = { entryId: "e-bank", userId: "u-alice", host: "bank.example", scheme: "https" };

describe("bound envelopes", () => {
  it("open only in their place: another entry, owner or host fails with MisplacedEnvelopeError", async () => {
    const keys = await deriveVaultKeys("passphrase one", "u-alice", FAST);
    const env = await sealEntry(keys, bank, secrets);
    expect(isBound(env)).toBe(true);
    expect((await openEntry(keys, bank, env)).secrets).toEqual(secrets);
    for (const other of [
      { ...bank, entryId: "e-forum" },
      { ...bank, userId: "u-bob" },
      { ...bank, host: "attacker.example" },
      { ...bank, host: "" },
      { ...bank, scheme: "http" },
      { ...bank, scheme: "" },
    ]) {
      await expect(openEntry(keys, other, env)).rejects.toBeInstanceOf(MisplacedEnvelopeError);
    }
  });

  it("binds data and wrap separately: one entry's data under another's wrap does not open", async () => {
    const keys = await deriveVaultKeys("passphrase one", "u-alice", FAST);
    const forumPlace = { ...bank, entryId: "e-forum", host: "forum.example" };
    const a = await sealEntry(keys, bank, secrets);
    const b = await sealEntry(keys, forumPlace, { ...secrets, password: "forum-pw" });
    await expect(
      openEntry(keys, forumPlace, {
        wrapped_item_key: b.wrapped_item_key,
        encrypted_data: a.encrypted_data,
      }),
    ).rejects.toBeInstanceOf(MisplacedEnvelopeError);
    await expect(
      openEntry(keys, bank, {
        wrapped_item_key: b.wrapped_item_key,
        encrypted_data: a.encrypted_data,
      }),
    ).rejects.toBeInstanceOf(MisplacedEnvelopeError);
  });

  it("tells bound from unbound by the first characters alone, as a full decode would, in either alphabet", async () => {
    const keys = await deriveVaultKeys("passphrase one", "u-alice", FAST);
    const env = await sealEntry(keys, bank, secrets);
    const url = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect(
      isBound({
        wrapped_item_key: url(env.wrapped_item_key),
        encrypted_data: url(env.encrypted_data),
      }),
    ).toBe(true);
    const legacy = await encryptLegacyEntry(keys, secrets);
    expect(isBound(legacy)).toBe(false);
    // Every first byte after the magic (the 6th character carries two of its bits), and texts too
    // short or padded early, against the magic found by decoding the whole text.
    const magic = [0x63, 0x76, 0x32, 0x3a];
    const full = (b64: string) => {
      const bytes = fromBase64(b64);
      return bytes.length > magic.length && magic.every((m, i) => bytes[i] === m);
    };
    const texts: string[] = [];
    for (let b = 0; b < 256; b++)
      texts.push(
        toBase64(new Uint8Array([...magic, b, 7, 9, 11])),
        toBase64(new Uint8Array([0x63, 0x76, 0x32, b, 1, 2])),
      );
    texts.push(
      toBase64(new Uint8Array(magic)),
      toBase64(new Uint8Array([...magic, 1])),
      "Y3YyOg",
      "Y3YyOg==",
      url(toBase64(new Uint8Array([...magic, 0xff, 0xfe, 0xfd]))),
    );
    for (const t of texts)
      expect(isBound({ wrapped_item_key: t, encrypted_data: env.encrypted_data }), t).toBe(full(t));
  });

  it("places an entry by the host of its website, else its URL, and the scheme of its URL, else its website", () => {
    expect(placeOf("u", { id: "e", website: "www.Bank.example", url: null })).toEqual({
      entryId: "e",
      userId: "u",
      host: "bank.example",
      scheme: "",
    });
    expect(
      placeOf("u", { id: "e", website: "bank.example", url: " HTTPS://bank.example/login" }),
    ).toEqual({ entryId: "e", userId: "u", host: "bank.example", scheme: "https" });
    expect(
      placeOf("u", { id: "e", website: "https://bank.example", url: "http://bank.example/login" })
        .scheme,
    ).toBe("http");
    expect(placeOf("u", { id: "e", website: "https://bank.example", url: null }).scheme).toBe(
      "https",
    );
    expect(placeOf("u", { id: "e", website: null, url: "https://login.bank.example/x" }).host).toBe(
      "login.bank.example",
    );
    expect(placeOf("u", { id: "e" }).host).toBe("");
  });

  it("carries key version and rounds in the wrap header, which cannot be edited", async () => {
    const keys = await deriveVaultKeys("passphrase one", "u-alice", FAST, 3);
    const env = await sealEntry(keys, bank, secrets);
    expect(wrapHeader(env.wrapped_item_key)).toEqual({ keyVersion: 3, iterations: FAST });
    const bytes = fromBase64(env.wrapped_item_key);
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(4 + 5, FAST + 1);
    await expect(
      openEntry(keys, bank, { ...env, wrapped_item_key: toBase64(bytes) }),
    ).rejects.toBeInstanceOf(MisplacedEnvelopeError);
  });

  it("refuses an older key version (replay) and names a newer one (passphrase changed elsewhere)", async () => {
    const v1 = await deriveVaultKeys("old passphrase", "u-alice", FAST, 1);
    const v2 = await deriveVaultKeys("new passphrase", "u-alice", FAST, 2);
    const old = await sealEntry(v1, bank, secrets);
    const rollback = await openEntry(v2, bank, old).catch((e: unknown) => e);
    expect(rollback).toBeInstanceOf(KeyRollbackError);
    expect((rollback as Error).message).toContain("older vault key (version 1)");
    await expect(openEntry(v1, bank, await sealEntry(v2, bank, secrets))).rejects.toBeInstanceOf(
      NewerKeyError,
    );
  });

  it("opens unbound (version 1) envelopes only when allowed, and says they are legacy", async () => {
    const keys = await deriveVaultKeys("passphrase one", "u-alice", FAST);
    const legacy = await encryptLegacyEntry(keys, secrets);
    expect(isBound(legacy)).toBe(false);
    await expect(openEntry(keys, bank, legacy)).rejects.toBeInstanceOf(LegacyRefusedError);
    expect(await openEntry(keys, bank, legacy, { allowLegacy: true })).toEqual({
      secrets,
      legacy: true,
    });
    // A bound blob with its magic stripped is not a legacy blob: the AD is still required.
    const bound = await sealEntry(keys, bank, secrets);
    const strip = (b64: string, n: number) => toBase64(fromBase64(b64).subarray(n));
    await expect(
      openEntry(
        keys,
        bank,
        {
          wrapped_item_key: strip(bound.wrapped_item_key, 13),
          encrypted_data: strip(bound.encrypted_data, 4),
        },
        { allowLegacy: true },
      ),
    ).rejects.toThrow();
  });

  it("tells bound from unbound by each half's leading bytes, whatever the length, in either base64 alphabet", async () => {
    const keys = await deriveVaultKeys("passphrase one", "u-alice", FAST);
    const long = await sealEntry(keys, bank, { ...secrets, notes: "x".repeat(20_000) });
    const legacy = await encryptLegacyEntry(keys, secrets);
    const url = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect(isBound(long)).toBe(true);
    expect(
      isBound({
        wrapped_item_key: url(long.wrapped_item_key),
        encrypted_data: url(long.encrypted_data),
      }),
    ).toBe(true);
    // Either half unbound makes the envelope unbound.
    expect(
      isBound({ wrapped_item_key: long.wrapped_item_key, encrypted_data: legacy.encrypted_data }),
    ).toBe(false);
    expect(
      isBound({ wrapped_item_key: legacy.wrapped_item_key, encrypted_data: long.encrypted_data }),
    ).toBe(false);
    // Too short to hold the magic and a byte after it.
    expect(
      isBound({
        wrapped_item_key: toBase64(new Uint8Array([0x63, 0x76, 0x32, 0x3a])),
        encrypted_data: long.encrypted_data,
      }),
    ).toBe(false);
    expect(isBound({ wrapped_item_key: "", encrypted_data: "" })).toBe(false);
  });
});

describe("version 3: the address's scheme is bound", () => {
  const row = { id: bank.entryId, website: "bank.example", url: "https://bank.example/login" };

  it("round-trips, and a row whose URL the server turned from https into http does not open", async () => {
    const keys = await deriveVaultKeys("passphrase one", "u-alice", FAST);
    const env = await sealEntry(keys, placeOf(bank.userId, row), secrets);
    expect(bindsScheme(env)).toBe(true);
    expect(fromBase64(env.encrypted_data).subarray(0, 4)).toEqual(
      new Uint8Array([0x63, 0x76, 0x33, 0x3a]),
    );
    expect(await openEntry(keys, placeOf(bank.userId, row), env)).toEqual({
      secrets,
      legacy: false,
    });
    for (const url of [
      "http://bank.example/login",
      "bank.example/login",
      "HTTP://bank.example/login",
    ]) {
      await expect(
        openEntry(keys, placeOf(bank.userId, { ...row, url }), env),
        url,
      ).rejects.toBeInstanceOf(MisplacedEnvelopeError);
    }
    // The scheme moved into the website instead, the URL dropped: still not the sealed place.
    await expect(
      openEntry(
        keys,
        placeOf(bank.userId, { ...row, website: "http://bank.example", url: null }),
        env,
      ),
    ).rejects.toBeInstanceOf(MisplacedEnvelopeError);
  });

  it("still opens a version-2 envelope, whose scheme was never bound", async () => {
    const keys = await deriveVaultKeys("passphrase one", "u-alice", FAST);
    const v2 = await sealEntryV2(keys, placeOf(bank.userId, row), secrets);
    expect(isBound(v2)).toBe(true);
    expect(bindsScheme(v2)).toBe(false);
    expect(await openEntry(keys, placeOf(bank.userId, row), v2)).toEqual({
      secrets,
      legacy: false,
    });
    // Version 2 binds the host only: the same flip opens it, which is why a write re-seals as version 3.
    expect(
      (
        await openEntry(
          keys,
          placeOf(bank.userId, { ...row, url: "http://bank.example/login" }),
          v2,
        )
      ).secrets,
    ).toEqual(secrets);
    await expect(
      openEntry(keys, placeOf(bank.userId, { ...row, website: "forum.example" }), v2),
    ).rejects.toBeInstanceOf(MisplacedEnvelopeError);
  });

  it("refuses a magic changed to name the other version, either way and in either part", async () => {
    const keys = await deriveVaultKeys("passphrase one", "u-alice", FAST);
    const place = placeOf(bank.userId, row);
    const v3 = await sealEntry(keys, place, secrets);
    const v2 = await sealEntryV2(keys, place, secrets);
    const relabel = (b64: string, digit: number) => {
      const b = fromBase64(b64);
      b[2] = digit;
      return toBase64(b);
    };
    for (const env of [
      { ...v3, encrypted_data: relabel(v3.encrypted_data, 0x32) },
      { ...v3, wrapped_item_key: relabel(v3.wrapped_item_key, 0x32) },
      { ...v2, encrypted_data: relabel(v2.encrypted_data, 0x33) },
      { ...v2, wrapped_item_key: relabel(v2.wrapped_item_key, 0x33) },
    ]) {
      await expect(openEntry(keys, place, env)).rejects.toBeInstanceOf(MisplacedEnvelopeError);
    }
  });

  it("a passphrase change rewraps a version-2 entry's key as version 3, which binds the scheme", async () => {
    const old = await deriveVaultKeys("old passphrase", "u-alice", FAST, 1);
    const next = await deriveVaultKeys("new passphrase", "u-alice", FAST, 2);
    const place = placeOf(bank.userId, row);
    const v2 = await sealEntryV2(old, place, secrets);
    const moved = {
      ...v2,
      wrapped_item_key: await rewrapItemKey(old, next, place, v2.wrapped_item_key),
    };
    expect(bindsScheme(moved)).toBe(true);
    expect((await openEntry(next, place, moved)).secrets).toEqual(secrets);
    await expect(openEntry(next, { ...place, scheme: "http" }, moved)).rejects.toBeInstanceOf(
      MisplacedEnvelopeError,
    );
  });
});

describe("key-derivation floor", () => {
  it("accepts 600,000 rounds and more, refuses fewer and absurd counts", () => {
    expect(acceptKdf(KDF_FLOOR)).toBe(600_000);
    expect(acceptKdf(1_200_000)).toBe(1_200_000);
    for (const bad of [1, 100_000, 599_999, 50_000_000, Number.NaN])
      expect(() => acceptKdf(bad)).toThrow(KdfRefusedError);
    expect(() => acceptKdf(1000)).toThrow(/weaker key derivation \(PBKDF2 with 1000 rounds\)/);
  });
});

describe("key fingerprints", () => {
  it("are six groups of five digits, stable for a key and different for another", async () => {
    const pair = async () =>
      (await crypto.subtle.exportKey(
        "jwk",
        (
          await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
            "deriveBits",
          ])
        ).publicKey,
      )) as { kty: string; crv: string; x: string; y: string };
    const a = await pair();
    const fa = await fingerprint(a);
    expect(fa).toMatch(/^\d{5}( \d{5}){5}$/);
    // Member order and extra members (key_ops, ext) do not change it: RFC 7638's canonical input.
    expect(
      await fingerprint({ y: a.y, x: a.x, crv: a.crv, kty: a.kty, ...{ ext: true } } as typeof a),
    ).toBe(fa);
    expect(await fingerprint(await pair())).not.toBe(fa);
  });
});

describe("contacts' keys for sharing, emergency access and the dead man's switch", () => {
  const jwk = { kty: "EC", crv: "P-256", x: "x".repeat(43), y: "y".repeat(43) };
  const api = {
    sharingKey: async () => ({ publicKey: jwk, created_at: "", updated_at: "" }),
  } as unknown as ApiClient;
  // A store that answers one status and records what it pinned (peek first, pin only when accepted).
  const trustSaying = (status: PinResult["status"]) => {
    const accepted: [string, boolean][] = [];
    const store = {
      peekKey: async () => ({
        status,
        fingerprint: "11111 22222 33333 44444 55555 66666",
        pinned: "99999 88888 77777 66666 55555 44444",
        compared: status === "ok",
      }),
      acceptKey: async (email: string, _jwk: unknown, compared: boolean) =>
        void accepted.push([email, compared]),
    } as unknown as TrustStore;
    return { store, accepted };
  };
  const answer = (said: FirstUseAnswer) => {
    const asked: string[] = [];
    return { asked, firstUse: async (_email: string, fp: string) => (asked.push(fp), said) };
  };

  it("hands out a pinned key; a first-seen key only after its fingerprint was shown and accepted, recording whether it was compared; refuses a changed one with both fingerprints", async () => {
    const ok = trustSaying("ok");
    const notAsked = answer("compared");
    expect(
      (await trustedContactKey(api, ok.store, "erin@example.test", "emergency", notAsked.firstUse))
        .jwk,
    ).toEqual(jwk);
    expect(notAsked.asked).toEqual([]);

    const fresh = trustSaying("new");
    const yes = answer("compared");
    const used = await trustedContactKey(
      api,
      fresh.store,
      "erin@example.test",
      "emergency",
      yes.firstUse,
    );
    expect(used.jwk).toEqual(jwk);
    expect(used.pin.compared).toBe(true);
    expect(yes.asked).toEqual(["11111 22222 33333 44444 55555 66666"]);
    expect(fresh.accepted).toEqual([["erin@example.test", true]]);

    const unchecked = trustSaying("new");
    expect(
      (
        await trustedContactKey(
          api,
          unchecked.store,
          "erin@example.test",
          "dead-man-switch",
          answer("not-compared").firstUse,
        )
      ).pin.compared,
    ).toBe(false);
    expect(unchecked.accepted).toEqual([["erin@example.test", false]]);

    const declined = trustSaying("new");
    await expect(
      trustedContactKey(
        api,
        declined.store,
        "erin@example.test",
        "sharing",
        answer("cancel").firstUse,
      ),
    ).rejects.toBeInstanceOf(FirstUseDeclined);
    expect(declined.accepted).toEqual([]);

    const err = await trustedContactKey(
      api,
      trustSaying("changed").store,
      "erin@example.test",
      "sharing",
      answer("compared").firstUse,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeyChangedError);
    expect((err as Error).message).toContain(
      "pinned 99999 88888 77777 66666 55555 44444, offered 11111 22222 33333 44444 55555 66666",
    );
  });
});
