import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { fingerprint, listDevices, register } from "../support/devices";
import { deviceKey, proof } from "../support/dpop";
import { browserSubscription, subscribe } from "../support/push";
import { SELF } from "../support/worker";

const DEVICES = "https://vault.test/api/devices";
const EXPORT = "https://vault.test/api/passwords/export";

type Notice = { type: string; body: string; action_url: string | null };
const notices = async (user: TestUser) =>
  ((await (await user.call("GET", "/api/notifications")).json()) as { notifications: Notice[] })
    .notifications;

/** The same account, signed in `authAge` seconds ago (null: a token without auth_time). */
const signedIn = (user: TestUser, authAge: number | null) =>
  TestUser.create({ sub: user.id, email: user.email, authAge });

describe("registering a new device takes a recent sign-in", () => {
  it("a token whose sign-in is over 300 s old cannot add a device: 401 STEP_UP_REQUIRED, nothing registered, still an unknown device", async () => {
    const owner = await TestUser.create();
    await register(owner);
    for (const age of [301, 3600, null]) {
      const stale = await signedIn(owner, age);
      const fp = fingerprint();
      const res = await stale.call("POST", "/api/devices", { body: { fingerprint: fp } });
      expect(res.headers.get("www-authenticate")).toContain("max_age=300");
      expect((await expectErrorBody(res, 401, "STEP_UP_REQUIRED")).maxAge).toBe(300);
      // D17: the fingerprint it tried to register is still an unknown device.
      await expectErrorBody(
        await stale.call("GET", "/api/passwords/export", {
          headers: { "x-device-fingerprint": fp },
        }),
        403,
        "FORBIDDEN",
      );
    }
    expect(await listDevices(owner)).toHaveLength(1);
    expect(await notices(owner)).toEqual([]);
  });

  it("a sign-in within 300 s adds one; a known fingerprint re-registers with any valid token", async () => {
    const owner = await TestUser.create();
    const recent = await signedIn(owner, 290);
    const added = await register(recent);
    expect(added.status).toBe(201);
    const stale = await signedIn(owner, 3600);
    expect((await register(stale, { fingerprint: added.fingerprint })).status).toBe(200);
    expect(await listDevices(owner)).toHaveLength(1);
  });

  it("binding a key to a device known by its fingerprint alone takes the same recent sign-in", async () => {
    const owner = await TestUser.create();
    const { fingerprint: fp } = await register(owner);
    const stale = await signedIn(owner, 3600);
    const key = await deviceKey();
    const res = await stale.call("POST", "/api/devices", {
      body: { fingerprint: fp, publicKey: key.jwk },
      headers: { dpop: await proof(key, stale, "POST", DEVICES) },
    });
    await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
    expect((await listDevices(owner))[0]!.key_bound).toBe(false);
    const bound = await owner.call("POST", "/api/devices", {
      body: { fingerprint: fp, publicKey: key.jwk },
      headers: { dpop: await proof(key, owner, "POST", DEVICES) },
    });
    expect(bound.status).toBe(200);
    expect((await listDevices(owner))[0]!.key_bound).toBe(true);
  });

  it("a new device is announced on the account's other devices, by notification and Web Push, with the way to revoke it", async () => {
    const owner = await TestUser.create();
    await register(owner);
    const sub = await browserSubscription();
    expect((await subscribe(owner, sub.json)).status).toBe(201);
    const added = await register(owner, { deviceName: "Unfamiliar laptop" });
    const [notice] = await notices(owner);
    expect(notice).toMatchObject({ type: "new_device", action_url: "/devices" });
    expect(notice!.body).toContain("Unfamiliar laptop");
    expect(notice!.body).toMatch(/revoke it in Devices/);
    for (let i = 0; i < 50 && (await sub.received()).length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    const [pushed] = await sub.received();
    expect(pushed!.payload).toMatchObject({ type: "new_device", url: "/devices" });
    expect(String(pushed!.payload!.body)).toMatch(/revoke it in Devices/);
    expect(added.status).toBe(201);
  });
});

describe("a key-bound device is not its fingerprint", () => {
  it("with the token in the HTTP-only cookie a proof needs no ath (the page cannot read the token); with a bearer token it does", async () => {
    const owner = await TestUser.create();
    const key = await deviceKey();
    const fp = fingerprint();
    expect(
      (
        await owner.call("POST", "/api/devices", {
          body: { fingerprint: fp, publicKey: key.jwk },
          headers: { dpop: await proof(key, owner, "POST", DEVICES) },
        })
      ).status,
    ).toBe(201);
    const cookie = { cookie: `__Host-access_token=${owner.token}`, "x-device-fingerprint": fp };
    const noAth = async () => proof(key, owner, "GET", EXPORT, { ath: undefined });
    expect((await SELF.fetch(EXPORT, { headers: { ...cookie, dpop: await noAth() } })).status).toBe(
      200,
    );
    await expectErrorBody(await SELF.fetch(EXPORT, { headers: cookie }), 403, "FORBIDDEN");
    const thief = await deviceKey();
    await expectErrorBody(
      await SELF.fetch(EXPORT, {
        headers: { ...cookie, dpop: await proof(thief, owner, "GET", EXPORT, { ath: undefined }) },
      }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await owner.call("GET", "/api/passwords/export", {
        headers: { "x-device-fingerprint": fp, dpop: await noAth() },
      }),
      403,
      "FORBIDDEN",
    );
    expect(
      (
        await owner.call("GET", "/api/passwords/export", {
          headers: { "x-device-fingerprint": fp, dpop: await proof(key, owner, "GET", EXPORT) },
        })
      ).status,
    ).toBe(200);
  });
});
