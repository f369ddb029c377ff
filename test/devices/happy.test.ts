import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deviceTypeFromUserAgent } from "../../src/domains/devices/user-agent";
import { TestUser } from "../support/auth";
import { fingerprint, listDevices, register, UA } from "../support/devices";

describe("trusted devices: happy paths", () => {
  it("registers a new device as trusted and current, storing the client IP", async () => {
    const user = await TestUser.create();
    const fp = fingerprint();
    const before = new Date().toISOString();
    const { status, device } = await register(user, { fingerprint: fp.toUpperCase() });
    expect(status).toBe(201);
    expect(device).toMatchObject({
      user_id: user.id,
      fingerprint_hint: expect.stringMatching(/^[0-9a-f]{8}$/),
      key_bound: false,
      device_name: "Work laptop",
      device_type: "desktop",
      os: "Linux",
      browser: "Chrome",
      ip_address: "203.0.113.5",
      trust_level: "trusted",
      is_current: true,
    });
    expect(device.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(device.trusted_at! >= before).toBe(true);
    expect(device.last_active_at).toBe(device.trusted_at);
    expect(await listDevices(user)).toEqual([device]);
  });

  it("a second device becomes current and the first stops being so", async () => {
    const user = await TestUser.create();
    const first = await register(user);
    const second = await register(user, { deviceName: "Phone" }, { "user-agent": UA.iphone });
    const list = await listDevices(user);
    expect(list.map((d) => [d.id, d.is_current])).toEqual([
      [second.device.id, true],
      [first.device.id, false],
    ]);
  });

  it("a new device (not the first, not a re-registration) notifies the owner", async () => {
    const user = await TestUser.create();
    const first = await register(user);
    const types = async () =>
      (
        (await (await user.call("GET", "/api/notifications")).json()) as {
          notifications: { type: string; body: string; metadata: Record<string, unknown> }[];
        }
      ).notifications;
    expect(await types()).toEqual([]);
    await register(user, { fingerprint: first.fingerprint });
    expect(await types()).toEqual([]);
    const second = await register(user, { deviceName: "Phone" }, { "user-agent": UA.iphone });
    const list = await types();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      type: "new_device",
      metadata: { deviceId: second.device.id, deviceType: "mobile" },
    });
    expect(list[0].body).toContain("Phone");
  });

  it("re-registering by fingerprint answers 200, keeps trust and name, refreshes OS, browser, IP and activity, and becomes current", async () => {
    const user = await TestUser.create();
    const fp = fingerprint();
    const first = await register(user, { fingerprint: fp });
    await user.call("PATCH", `/api/devices/${first.device.id}`, {
      body: { trustLevel: "recognized" },
    });
    await register(user);
    const again = await register(
      user,
      { fingerprint: fp, deviceName: "Renamed by client", os: "macOS", browser: "Firefox" },
      { "cf-connecting-ip": "198.51.100.9", "user-agent": UA.iphone },
    );
    expect(again.status).toBe(200);
    expect(again.device).toMatchObject({
      id: first.device.id,
      device_name: "Work laptop",
      device_type: "desktop",
      os: "macOS",
      browser: "Firefox",
      ip_address: "198.51.100.9",
      trust_level: "recognized",
      is_current: true,
      trusted_at: null,
      created_at: first.device.created_at,
    });
    expect(again.device.last_active_at > first.device.last_active_at).toBe(true);
    const list = await listDevices(user);
    expect(list).toHaveLength(2);
    expect(list.filter((d) => d.is_current).map((d) => d.id)).toEqual([first.device.id]);
  });

  it("device type comes from the user agent by the spec's rules", async () => {
    const user = await TestUser.create();
    const cases: [string, string][] = [
      [UA.desktop, "desktop"],
      [UA.iphone, "mobile"],
      [UA.ipad, "tablet"],
      [UA.androidPhone, "mobile"],
      [UA.androidTablet, "tablet"],
    ];
    for (const [ua, type] of cases) {
      const { device } = await register(user, { deviceType: "desktop" }, { "user-agent": ua });
      expect(device.device_type, ua).toBe(type);
    }
  });

  it("the user-agent rule covers every marker the spec names", () => {
    for (const ua of [
      "Mobile Safari",
      "iPhone",
      "iPod touch",
      "Android 4.0 Mobile",
      "webOS/2.0",
      "BlackBerry9700",
      "IEMobile/10.0",
      "Opera Mini/8.0",
    ]) {
      expect(deviceTypeFromUserAgent(ua), ua).toBe("mobile");
    }
    for (const ua of ["iPad", "Linux; Android 13; Tablet"])
      expect(deviceTypeFromUserAgent(ua), ua).toBe("tablet");
    for (const ua of ["", "Mozilla/5.0 (Windows NT 10.0; Win64; x64)", "curl/8.0"])
      expect(deviceTypeFromUserAgent(ua), ua).toBe("desktop");
  });

  it("without a user agent the body's deviceType is used; without either, desktop", async () => {
    const user = await TestUser.create();
    const { device } = await register(user, { deviceType: "tablet" }, { "user-agent": "" });
    expect(device.device_type).toBe("tablet");
    const res = await user.call("POST", "/api/devices", { body: { fingerprint: fingerprint() } });
    expect(res.status).toBe(201);
    expect(
      ((await res.json()) as { device: { device_type: string; device_name: string; os: null } })
        .device,
    ).toMatchObject({ device_type: "desktop", device_name: "Unnamed device", os: null });
    const named = await user.call("POST", "/api/devices", {
      body: { fingerprint: fingerprint(), os: "macOS", browser: "Safari" },
    });
    expect(((await named.json()) as { device: { device_name: string } }).device.device_name).toBe(
      "Safari on macOS",
    );
  });

  it("renames a device and changes its trust, auditing device.updated with IP, user agent and changes", async () => {
    const user = await TestUser.create();
    const { device } = await register(user);
    const res = await user.call("PATCH", `/api/devices/${device.id}`, {
      body: { deviceName: "Old laptop", trustLevel: "recognized" },
      headers: { "cf-connecting-ip": "192.0.2.44", "user-agent": "vault-client/2.0" },
    });
    expect(res.status).toBe(200);
    const { device: updated } = (await res.json()) as { device: Record<string, unknown> };
    expect(updated).toMatchObject({
      id: device.id,
      device_name: "Old laptop",
      trust_level: "recognized",
      trusted_at: null,
    });
    const audit = await env.DB.prepare(
      "SELECT * FROM audit_events WHERE user_id = ? AND action = 'device.updated'",
    )
      .bind(user.id)
      .first<Record<string, string>>();
    expect(audit).toMatchObject({
      target_type: "device",
      target_id: device.id,
      ip: "192.0.2.44",
      user_agent: "vault-client/2.0",
    });
    expect(JSON.parse(audit!.details)).toEqual({
      changes: {
        device_name: { from: "Work laptop", to: "Old laptop" },
        trust_level: { from: "trusted", to: "recognized" },
      },
    });
    const back = await user.call("PATCH", `/api/devices/${device.id}`, {
      body: { trustLevel: "trusted" },
    });
    const { device: trusted } = (await back.json()) as {
      device: { trust_level: string; trusted_at: string };
    };
    expect(trusted.trust_level).toBe("trusted");
    expect(typeof trusted.trusted_at).toBe("string");
  });

  it("revokes a device, auditing device.revoked; the same fingerprint later registers as new", async () => {
    const user = await TestUser.create();
    const fp = fingerprint();
    const { device } = await register(user, { fingerprint: fp });
    await user.call("PATCH", `/api/devices/${device.id}`, { body: { trustLevel: "unknown" } });
    const res = await user.call("DELETE", `/api/devices/${device.id}`, {
      headers: { "cf-connecting-ip": "192.0.2.45", "user-agent": "vault-client/2.0" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(await listDevices(user)).toEqual([]);
    const audit = await env.DB.prepare(
      "SELECT * FROM audit_events WHERE user_id = ? AND action = 'device.revoked'",
    )
      .bind(user.id)
      .first<Record<string, string>>();
    expect(audit).toMatchObject({
      target_id: device.id,
      ip: "192.0.2.45",
      user_agent: "vault-client/2.0",
    });
    expect(JSON.parse(audit!.details)).toEqual({
      changes: {
        removed: { device_name: "Work laptop", trust_level: "unknown", device_type: "desktop" },
      },
    });
    const again = await register(user, { fingerprint: fp });
    expect(again.status).toBe(201);
    expect(again.device.id).not.toBe(device.id);
    expect(again.device.trust_level).toBe("trusted");
  });

  it("a PATCH that changes nothing returns the device and writes no audit event", async () => {
    const user = await TestUser.create();
    const { device } = await register(user);
    const res = await user.call("PATCH", `/api/devices/${device.id}`, {
      body: { deviceName: "Work laptop", trustLevel: "trusted" },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { device: unknown }).device).toEqual(device);
    const n = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE user_id = ?")
      .bind(user.id)
      .first<{ n: number }>();
    expect(n?.n).toBe(0);
  });
});
