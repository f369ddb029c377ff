import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { fingerprint, listDevices, register } from "../support/devices";
import { ageSecondFactor, codeFor, enrollAndConfirm } from "../support/two-factor";

describe("trusted devices: security", () => {
  it("another user's device is 404 for PATCH and DELETE, stays unchanged, and is not listed", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const { device } = await register(owner);
    await expectErrorBody(
      await intruder.call("PATCH", `/api/devices/${device.id}`, {
        body: { trustLevel: "unknown" },
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await intruder.call("DELETE", `/api/devices/${device.id}`),
      404,
      "NOT_FOUND",
    );
    expect(await listDevices(intruder)).toEqual([]);
    expect(await listDevices(owner)).toEqual([device]);
  });

  it("the same fingerprint under two users is two devices; one user's registration leaves the other's current device alone", async () => {
    const a = await TestUser.create();
    const b = await TestUser.create();
    const fp = fingerprint();
    const da = await register(a, { fingerprint: fp });
    const db = await register(b, { fingerprint: fp });
    expect(db.status).toBe(201);
    expect(db.device.id).not.toBe(da.device.id);
    await register(b);
    expect((await listDevices(a))[0]).toMatchObject({ id: da.device.id, is_current: true });
  });

  it("concurrent registrations of one new fingerprint make one device, one 201", async () => {
    const user = await TestUser.create();
    const fp = fingerprint();
    const results = await Promise.all(
      [0, 1, 2, 3].map(() => user.call("POST", "/api/devices", { body: { fingerprint: fp } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    const list = await listDevices(user);
    expect(list).toHaveLength(1);
    expect(list[0].is_current).toBe(true);
  });

  it("raising trust needs a recent sign-in unless the caller's device is trusted; lowering never does", async () => {
    const user = await TestUser.create({ authAge: 3600 });
    // Registering a new device takes a recent sign-in: the same user signed in a moment ago does.
    const fresh = await TestUser.create({ sub: user.id, authAge: 10 });
    const { device: laptop, fingerprint: laptopFp } = await register(fresh);
    const { device: phone, fingerprint: phoneFp } = await register(fresh);
    expect(
      (await user.call("PATCH", `/api/devices/${phone.id}`, { body: { trustLevel: "unknown" } }))
        .status,
    ).toBe(200);
    const res = await user.call("PATCH", `/api/devices/${phone.id}`, {
      body: { trustLevel: "recognized" },
      headers: { "x-device-fingerprint": phoneFp },
    });
    expect((await expectErrorBody(res, 401, "STEP_UP_REQUIRED")).maxAge).toBe(300);
    expect((await listDevices(user)).find((d) => d.id === phone.id)?.trust_level).toBe("unknown");
    const fromTrusted = await user.call("PATCH", `/api/devices/${phone.id}`, {
      body: { trustLevel: "trusted" },
      headers: { "x-device-fingerprint": laptopFp },
    });
    expect(fromTrusted.status).toBe(200);
    expect(
      (await fresh.call("PATCH", `/api/devices/${laptop.id}`, { body: { trustLevel: "unknown" } }))
        .status,
    ).toBe(200);
    expect(
      (await fresh.call("PATCH", `/api/devices/${laptop.id}`, { body: { trustLevel: "trusted" } }))
        .status,
    ).toBe(200);
  });

  it("x-device-fingerprint names the caller's device for step-up; a revoked device is unknown again", async () => {
    const user = await TestUser.create({ authAge: 3600 });
    const fresh = await TestUser.create({ sub: user.id, authAge: 10 });
    // A first enrollment needs a recent sign-in (D20); the stale one then passes its own code, which
    // counts for step-up: make it as old as the sign-in.
    const e = await enrollAndConfirm(fresh);
    expect(
      (await user.call("POST", "/api/2fa/verify", { body: { code: await codeFor(e.secret, 1) } }))
        .status,
    ).toBe(200);
    await ageSecondFactor(user.id, 3600);
    const { device, fingerprint: fp } = await register(fresh);
    const headers = { "x-device-fingerprint": fp };
    expect((await user.call("DELETE", `/api/devices/${device.id}`)).status).toBe(200);
    const res = await user.call("POST", "/api/2fa/disable", {
      body: { code: e.recoveryCodes[1] },
      headers,
    });
    await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
    await register(fresh, { fingerprint: fp });
    expect(
      (await user.call("POST", "/api/2fa/disable", { body: { code: e.recoveryCodes[0] }, headers }))
        .status,
    ).toBe(200);
  });
});
