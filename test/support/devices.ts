import type { TestUser } from "./auth";

export const UA = {
  desktop:
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36",
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  ipad: "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  androidPhone:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36",
  androidTablet:
    "Mozilla/5.0 (Linux; Android 14; SM-X910) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36",
};

export function fingerprint(): string {
  return [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

export type Device = {
  id: string;
  user_id: string;
  fingerprint_hint: string;
  key_bound: boolean;
  device_name: string;
  device_type: string;
  os: string | null;
  browser: string | null;
  ip_address: string | null;
  trust_level: string;
  is_current: boolean;
  last_active_at: string;
  trusted_at: string | null;
  created_at: string;
};

/** Registers a device; `fingerprint` is the one sent (the service never returns it). */
export async function register(
  user: TestUser,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ status: number; device: Device; fingerprint: string }> {
  const sent = {
    fingerprint: fingerprint(),
    deviceName: "Work laptop",
    deviceType: "desktop",
    os: "Linux",
    browser: "Chrome",
    ...body,
  };
  const res = await user.call("POST", "/api/devices", {
    body: sent,
    headers: { "user-agent": UA.desktop, "cf-connecting-ip": "203.0.113.5", ...headers },
  });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`register failed: ${res.status} ${await res.text()}`);
  return {
    status: res.status,
    device: ((await res.json()) as { device: Device }).device,
    fingerprint: String(sent.fingerprint).toLowerCase(),
  };
}

export async function listDevices(user: TestUser): Promise<Device[]> {
  return ((await (await user.call("GET", "/api/devices")).json()) as { devices: Device[] }).devices;
}
