import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_DEVICES_PER_USER } from "../../src/domains/devices/service";
import { expectErrorBody, TestUser } from "../support/auth";
import { fingerprint, listDevices, register } from "../support/devices";

describe("trusted devices: errors", () => {
  it("invalid registrations are 400 naming the field and register nothing", async () => {
    const user = await TestUser.create();
    const fp = fingerprint();
    const cases: [Record<string, unknown>, string][] = [
      [{}, "fingerprint"],
      [{ fingerprint: "abc" }, "fingerprint"],
      [{ fingerprint: "g".repeat(64) }, "fingerprint"],
      [{ fingerprint: fp + "0" }, "fingerprint"],
      [{ fingerprint: 123 }, "fingerprint"],
      [{ fingerprint: fp, deviceType: "phone" }, "deviceType"],
      [{ fingerprint: fp, deviceName: "" }, "deviceName"],
      [{ fingerprint: fp, deviceName: "x".repeat(101) }, "deviceName"],
      [{ fingerprint: fp, os: "x".repeat(101) }, "os"],
      [{ fingerprint: fp, browser: 7 }, "browser"],
    ];
    for (const [body, field] of cases) {
      const err = await expectErrorBody(
        await user.call("POST", "/api/devices", { body }),
        400,
        "VALIDATION_ERROR",
      );
      expect(
        err.details?.map((d) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(await listDevices(user)).toEqual([]);
  });

  it("invalid updates are 400 and change nothing", async () => {
    const user = await TestUser.create();
    const { device } = await register(user);
    for (const body of [
      {},
      { trustLevel: "admin" },
      { deviceName: "" },
      { deviceName: "x".repeat(101) },
      { trustLevel: null },
    ]) {
      await expectErrorBody(
        await user.call("PATCH", `/api/devices/${device.id}`, { body }),
        400,
        "VALIDATION_ERROR",
      );
    }
    expect(await listDevices(user)).toEqual([device]);
  });

  it("unknown devices are 404 for PATCH and DELETE", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("PATCH", `/api/devices/${crypto.randomUUID()}`, {
        body: { deviceName: "x" },
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("DELETE", `/api/devices/${crypto.randomUUID()}`),
      404,
      "NOT_FOUND",
    );
  });

  it(`past ${MAX_DEVICES_PER_USER} devices a new one is 409, while known ones still re-register`, async () => {
    const user = await TestUser.create();
    const now = new Date().toISOString();
    const stmt = env.DB.prepare(
      "INSERT INTO devices (id, user_id, device_fingerprint, device_name, device_type, trust_level, is_current, last_active_at, created_at) VALUES (?, ?, ?, 'd', 'desktop', 'trusted', 0, ?, ?)",
    );
    const fps = Array.from({ length: MAX_DEVICES_PER_USER }, fingerprint);
    await env.DB.batch(fps.map((fp) => stmt.bind(crypto.randomUUID(), user.id, fp, now, now)));
    const res = await user.call("POST", "/api/devices", { body: { fingerprint: fingerprint() } });
    await expectErrorBody(res, 409, "CONFLICT");
    const row = await env.DB.prepare(
      "SELECT count(*) AS n, sum(is_current) AS current FROM devices WHERE user_id = ?",
    )
      .bind(user.id)
      .first<{ n: number; current: number }>();
    expect(row).toEqual({ n: MAX_DEVICES_PER_USER, current: 0 });
    expect((await register(user, { fingerprint: fps[5] })).status).toBe(200);
  });

  it("registration is limited to 30 per 60 seconds", async () => {
    const user = await TestUser.create();
    const fp = fingerprint();
    for (let i = 0; i < 30; i++)
      expect(
        (await user.call("POST", "/api/devices", { body: { fingerprint: fp } })).status,
      ).toBeLessThan(300);
    const res = await user.call("POST", "/api/devices", { body: { fingerprint: fp } });
    await expectErrorBody(res, 429, "RATE_LIMITED");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
