import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson } from "./support/account";
import { launch, screenshot, type Browser } from "./support/browser";
import { openSection } from "./support/journey";

// Devices: this browser registers itself with the spec's eight signals and names itself on every
// call (x-device-fingerprint); the page lists, renames, changes trust and removes devices.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;
const phoneFingerprint = createHash("sha256").update("iPhone|en-GB|6|390x844|24|Europe/London|5|Apple GPU").digest("hex");

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "devices");
});

afterAll(async () => {
  await browser?.close();
});

const serverDevices = async () => (await person.api.get("/api/devices")).body.devices as { id: string; device_name: string; trust_level: string; device_type: string; is_current: boolean }[];
/** The phone registered from Node below: the server returns no fingerprints (only a keyed hint), so it is found by id. */
let phoneId = "";
const card = (name: string) => person.page.locator("#devices li", { hasText: name });

describe("devices", () => {
  it("this browser registered at sign-in with the SHA-256 of its eight signals, and sends it on every call", async () => {
    const { page } = person;
    const signals = await page.evaluate(() => {
      const gl = document.createElement("canvas").getContext("webgl");
      const ext = gl?.getExtension("WEBGL_debug_renderer_info");
      const gpu = gl ? String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? "unknown") : "none";
      return [navigator.platform || "unknown", navigator.language || "unknown", navigator.hardwareConcurrency || 0, `${screen.width}x${screen.height}`, screen.colorDepth || 0, Intl.DateTimeFormat().resolvedOptions().timeZone || "unknown", navigator.maxTouchPoints || 0, gpu].join("|");
    });
    const expected = createHash("sha256").update(signals).digest("hex");
    await expect.poll(async () => (await serverDevices()).length).toBe(1);
    expect((await serverDevices())[0]).toMatchObject({ trust_level: "trusted", device_type: "desktop", is_current: true });
    // The server never returns a fingerprint; registering the same one again is a re-registration (200), not a new device.
    expect((await person.api.post("/api/devices", { fingerprint: expected })).status).toBe(200);
    expect(await serverDevices()).toHaveLength(1);

    const sent = page.waitForRequest((r) => r.url().includes("/api/devices") && r.method() === "GET");
    await openSection(page, "Devices");
    expect((await sent).headers()["x-device-fingerprint"]).toBe(expected);
    await card("This browser").waitFor();
  });

  it("lists another device of the account; renames it; an empty name is refused and changes nothing", async () => {
    const { page, api } = person;
    const phone = await api.post("/api/devices", { fingerprint: phoneFingerprint, deviceName: "Safari on iOS", deviceType: "mobile", os: "iOS", browser: "Safari" });
    expect(phone.status).toBe(201);
    phoneId = (phone.body as { device: { id: string } }).device.id;
    await page.reload();
    await card("Safari on iOS").waitFor();
    await screenshot(page, "screenshots/devices-list.png");

    await card("Safari on iOS").getByLabel("Name of Safari on iOS").fill("   ");
    await card("Safari on iOS").getByRole("button", { name: "Rename" }).click();
    await expect.poll(() => page.locator("#devices-error").innerText()).toBe("A device name cannot be empty");
    expect((await serverDevices()).some((d) => d.device_name === "Safari on iOS")).toBe(true);

    await card("Safari on iOS").getByLabel("Name of Safari on iOS").fill("Kim's phone");
    await card("Safari on iOS").getByRole("button", { name: "Rename" }).click();
    await card("Kim's phone").waitFor();
    await expect.poll(async () => (await serverDevices()).find((d) => d.id === phoneId)?.device_name).toBe("Kim's phone");
  });

  it("changes trust both ways", async () => {
    const { page } = person;
    await card("Kim's phone").getByLabel("Trust of Kim's phone").selectOption("recognized");
    await expect.poll(async () => (await serverDevices()).find((d) => d.id === phoneId)?.trust_level).toBe("recognized");
    await page.locator("#devices li[data-trust=recognized]", { hasText: "Kim's phone" }).waitFor();
    await card("Kim's phone").getByLabel("Trust of Kim's phone").selectOption("trusted");
    await expect.poll(async () => (await serverDevices()).find((d) => d.id === phoneId)?.trust_level).toBe("trusted");
  });

  it("removes a device", async () => {
    const { page } = person;
    await card("Kim's phone").getByRole("button", { name: "Remove" }).click();
    await expect.poll(() => card("Kim's phone").count()).toBe(0);
    expect((await serverDevices()).map((d) => d.id)).not.toContain(phoneId);
    expect(await page.locator("#devices li").count()).toBe(1);
  });
});
