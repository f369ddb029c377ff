import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { calculateJwkThumbprint } from "jose";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { takeProofOnce } from "../../src/db/dpop-replay";
import { dpopProofs } from "../../src/db/schema";
import { expectErrorBody, TestUser } from "../support/auth";
import { fingerprint, listDevices, register } from "../support/devices";
import { codeFor, enrollAndConfirm } from "../support/two-factor";
import { deviceKey, proof, sha256b64u } from "../support/dpop";

const EXPORT = "https://vault.test/api/passwords/export";

describe("device possession (RFC 9449 DPoP) and fingerprints kept secret", () => {
  it("a fingerprint is never returned: lists and registration carry an id and a short keyed hint", async () => {
    const user = await TestUser.create();
    const fp = fingerprint();
    const res = await user.call("POST", "/api/devices", { body: { fingerprint: fp } });
    const text = await res.text();
    expect(text).not.toContain(fp);
    const listed = await user.call("GET", "/api/devices");
    const listText = await listed.text();
    expect(listText).not.toContain(fp);
    const [device] = (JSON.parse(listText) as { devices: Record<string, unknown>[] }).devices;
    expect(device).not.toHaveProperty("device_fingerprint");
    expect(device.fingerprint_hint).toMatch(/^[0-9a-f]{8}$/);
    expect(device.fingerprint_hint).toBe(
      (JSON.parse(text) as { device: Record<string, unknown> }).device.fingerprint_hint,
    );
    expect(device.key_bound).toBe(false);
  });

  it("a device with a key counts as registered only with a valid proof bound to method, URL, token and a server nonce", async () => {
    const user = await TestUser.create();
    const key = await deviceKey();
    const fp = fingerprint();
    const reg = await user.call("POST", "/api/devices", {
      body: { fingerprint: fp, publicKey: key.jwk },
      headers: { dpop: await proof(key, user, "POST", "https://vault.test/api/devices") },
    });
    expect(reg.status).toBe(201);
    expect(((await reg.json()) as { device: { key_bound: boolean } }).device.key_bound).toBe(true);
    const fpHeader = { "x-device-fingerprint": fp };
    // The fingerprint alone (what a token thief could copy) is an unknown device.
    await expectErrorBody(
      await user.call("GET", "/api/passwords/export", { headers: fpHeader }),
      403,
      "FORBIDDEN",
    );
    expect(
      (
        await user.call("GET", "/api/passwords/export", {
          headers: { ...fpHeader, dpop: await proof(key, user, "GET", EXPORT) },
        })
      ).status,
    ).toBe(200);
    const refused = [
      await proof(key, user, "POST", EXPORT),
      await proof(key, user, "GET", "https://vault.test/api/passwords"),
      await proof(key, user, "GET", EXPORT, { nonce: "1.forged" }),
      await proof(key, user, "GET", EXPORT, { ath: await sha256b64u("another token") }),
      await proof(await deviceKey(), user, "GET", EXPORT),
    ];
    for (const dpop of refused)
      await expectErrorBody(
        await user.call("GET", "/api/passwords/export", { headers: { ...fpHeader, dpop } }),
        403,
        "FORBIDDEN",
      );
  });

  it("a key is registered only with a proof by it; a bound device is re-registered only with a proof by its key", async () => {
    const user = await TestUser.create();
    const key = await deviceKey();
    const fp = fingerprint();
    const url = "https://vault.test/api/devices";
    await expectErrorBody(
      await user.call("POST", "/api/devices", { body: { fingerprint: fp, publicKey: key.jwk } }),
      403,
      "FORBIDDEN",
    );
    expect(await listDevices(user)).toEqual([]);
    expect(
      (
        await user.call("POST", "/api/devices", {
          body: { fingerprint: fp, publicKey: key.jwk },
          headers: { dpop: await proof(key, user, "POST", url) },
        })
      ).status,
    ).toBe(201);
    // A thief who copied the fingerprint cannot re-register it, with or without a key of their own.
    const thief = await deviceKey();
    await expectErrorBody(
      await user.call("POST", "/api/devices", { body: { fingerprint: fp } }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await user.call("POST", "/api/devices", {
        body: { fingerprint: fp, publicKey: thief.jwk },
        headers: { dpop: await proof(thief, user, "POST", url) },
      }),
      403,
      "FORBIDDEN",
    );
    expect(
      (
        await user.call("POST", "/api/devices", {
          body: { fingerprint: fp },
          headers: { dpop: await proof(key, user, "POST", url) },
        })
      ).status,
    ).toBe(200);
    const [device] = await listDevices(user);
    expect((device as unknown as { key_bound: boolean }).key_bound).toBe(true);
    expect(await calculateJwkThumbprint(key.jwk)).not.toBe(await calculateJwkThumbprint(thief.jwk));
    await register(user);
  });

  it("a proof is taken once (RFC 9449 section 11.1): the same proof sent again is refused, for a known device and for a registration", async () => {
    const user = await TestUser.create();
    const key = await deviceKey();
    const fp = fingerprint();
    const url = "https://vault.test/api/devices";
    const registration = await proof(key, user, "POST", url);
    const reg = { body: { fingerprint: fp, publicKey: key.jwk }, headers: { dpop: registration } };
    expect((await user.call("POST", "/api/devices", reg)).status).toBe(201);
    // The same proof again, within its nonce and iat window: refused as an unproven key.
    await expectErrorBody(await user.call("POST", "/api/devices", reg), 403, "FORBIDDEN");
    const once = { "x-device-fingerprint": fp, dpop: await proof(key, user, "GET", EXPORT) };
    expect((await user.call("GET", "/api/passwords/export", { headers: once })).status).toBe(200);
    await expectErrorBody(
      await user.call("GET", "/api/passwords/export", { headers: once }),
      403,
      "FORBIDDEN",
    );
    // Sent twice at once, one of the two is let in.
    const twice = { "x-device-fingerprint": fp, dpop: await proof(key, user, "GET", EXPORT) };
    const statuses = (
      await Promise.all(
        [0, 1].map(() => user.call("GET", "/api/passwords/export", { headers: twice })),
      )
    ).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 403]);
    // A fresh proof by the key is this device again.
    expect(
      (
        await user.call("GET", "/api/passwords/export", {
          headers: { "x-device-fingerprint": fp, dpop: await proof(key, user, "GET", EXPORT) },
        })
      ).status,
    ).toBe(200);
  });

  it("the replay store forgets a user's proofs once they are past their window, in the batch that takes a new one", async () => {
    const user = await TestUser.create();
    const db = dbFor(env, user.id);
    const now = Math.floor(Date.now() / 1000);
    expect(await takeProofOnce(db, user.id, "old", now - 1, now - 400)).toBe(true);
    expect(await takeProofOnce(db, user.id, "old", now - 1, now - 400)).toBe(false);
    expect(await takeProofOnce(db, user.id, "new", now + 360, now)).toBe(true);
    const left = await db
      .select({ proofId: dpopProofs.proofId })
      .from(dpopProofs)
      .where(eq(dpopProofs.userId, user.id))
      .all();
    expect(left.map((r) => r.proofId)).toEqual(["new"]);
    // Another user's store is their own.
    const other = await TestUser.create();
    expect(await takeProofOnce(dbFor(env, other.id), other.id, "new", now + 360, now)).toBe(true);
  });

  it("re-enrolling over a confirmed 2FA needs a current code", async () => {
    const user = await TestUser.create();
    const e = await enrollAndConfirm(user);
    await expectErrorBody(await user.call("POST", "/api/2fa/enroll"), 401, "UNAUTHORIZED");
    await expectErrorBody(
      await user.call("POST", "/api/2fa/enroll", { body: { code: "000000" } }),
      401,
      "UNAUTHORIZED",
    );
    const status = (await (await user.call("GET", "/api/2fa/status")).json()) as {
      enrolled: boolean;
    };
    expect(status.enrolled).toBe(true);
    const res = await user.call("POST", "/api/2fa/enroll", {
      body: { code: await codeFor(e.secret, 1) },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { secret: string }).secret).not.toBe(e.secret);
  });
});
