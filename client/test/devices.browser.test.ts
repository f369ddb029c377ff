import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson } from "./support/account";
import { launch, screenshot, type Browser } from "./support/browser";
import { base, openSection } from "./support/journey";

// Devices: this browser registers itself with the spec's eight signals and names itself on every
// call (x-device-fingerprint); the page lists, renames, changes trust and removes devices.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;
const phoneFingerprint = createHash("sha256")
  .update("iPhone|en-GB|6|390x844|24|Europe/London|5|Apple GPU")
  .digest("hex");

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "devices");
});

afterAll(async () => {
  await browser?.close();
});

const serverDevices = async () =>
  (await person.api.get("/api/devices")).body.devices as {
    id: string;
    device_name: string;
    trust_level: string;
    device_type: string;
    is_current: boolean;
  }[];
/** The phone registered from Node below: the server returns no fingerprints (only a keyed hint), so it is found by id. */
let phoneId = "";
const card = (name: string) => person.page.locator("#devices li", { hasText: name });

describe("devices", () => {
  it("this browser registered at sign-in with the SHA-256 of its eight signals, and sends it on every call", async () => {
    const { page } = person;
    const signals = await page.evaluate(() => {
      const gl = document.createElement("canvas").getContext("webgl");
      const ext = gl?.getExtension("WEBGL_debug_renderer_info");
      const gpu = gl
        ? String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? "unknown")
        : "none";
      return [
        navigator.platform || "unknown",
        navigator.language || "unknown",
        navigator.hardwareConcurrency || 0,
        `${screen.width}x${screen.height}`,
        screen.colorDepth || 0,
        Intl.DateTimeFormat().resolvedOptions().timeZone || "unknown",
        navigator.maxTouchPoints || 0,
        gpu,
      ].join("|");
    });
    const expected = createHash("sha256").update(signals).digest("hex");
    await expect.poll(async () => (await serverDevices()).length).toBe(1);
    expect((await serverDevices())[0]).toMatchObject({
      trust_level: "trusted",
      device_type: "desktop",
      is_current: true,
    });
    // The server never returns a fingerprint; and this browser's device is bound to its key, so the
    // fingerprint alone (without a proof by that key) cannot even re-register it.
    expect((await person.api.post("/api/devices", { fingerprint: expected })).status).toBe(403);
    expect(await serverDevices()).toHaveLength(1);

    const sent = page.waitForRequest(
      (r) => r.url().includes("/api/devices") && r.method() === "GET",
    );
    await openSection(page, "Devices");
    expect((await sent).headers()["x-device-fingerprint"]).toBe(expected);
    await card("This browser").waitFor();
  });

  it("this browser's device is bound to a non-extractable key, and its calls carry a DPoP proof by it; the fingerprint alone is an unknown device", async () => {
    const { page } = person;
    await expect
      .poll(async () => ((await serverDevices())[0] as { key_bound?: boolean }).key_bound)
      .toBe(true);
    const key = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open("vault-device-key");
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const pair = await new Promise<CryptoKeyPair>((resolve) => {
        const r = db.transaction("keys").objectStore("keys").get("dpop");
        r.onsuccess = () => resolve(r.result as CryptoKeyPair);
      });
      const exported = await crypto.subtle.exportKey("jwk", pair.privateKey).then(
        () => "exported",
        (e: Error) => e.name,
      );
      return {
        extractable: pair.privateKey.extractable,
        algorithm: pair.privateKey.algorithm as EcKeyAlgorithm,
        exported,
      };
    });
    expect(key).toEqual({
      extractable: false,
      algorithm: { name: "ECDSA", namedCurve: "P-256" },
      exported: "InvalidAccessError",
    });

    const sent = page.waitForRequest(
      (r) => r.url().includes("/api/devices?") && r.method() === "GET",
    );
    await page.reload();
    const proof = (await sent).headers()["dpop"];
    expect(proof).toBeTruthy();
    const [header, claims] = proof!
      .split(".")
      .slice(0, 2)
      .map(
        (p) => JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as Record<string, unknown>,
      );
    expect(header).toMatchObject({
      typ: "dpop+jwt",
      alg: "ES256",
      jwk: { kty: "EC", crv: "P-256" },
    });
    expect(header!.jwk).not.toHaveProperty("d");
    expect(claims).toMatchObject({ htm: "GET", htu: `${new URL(page.url()).origin}/api/devices` });
    expect(typeof claims!.jti).toBe("string");
    expect(typeof claims!.iat).toBe("number");
    expect(typeof claims!.nonce).toBe("string");
    // The token is in the HTTP-only cookie: the page cannot hash it, so the proof has no ath.
    expect(claims).not.toHaveProperty("ath");

    // Export refuses an unknown device (D11): this browser, with its proof, exports; the same
    // account naming this browser's fingerprint without a proof is refused.
    await openSection(page, "Import & export");
    await page.getByLabel("Vault file password", { exact: true }).fill("devices file password");
    await page
      .getByLabel("Vault file password again", { exact: true })
      .fill("devices file password");
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export the vault" }).click(),
    ]);
    expect(await file.failure()).toBeNull();
    const fingerprint = (await sent).headers()["x-device-fingerprint"]!;
    const copied = await fetch(`${base()}/api/passwords/export`, {
      headers: {
        authorization: `Bearer ${person.user.token}`,
        "x-device-fingerprint": fingerprint,
        connection: "close",
      },
    });
    expect(copied.status).toBe(403);
    await openSection(page, "Devices");
  });

  it("lists another device of the account; renames it; an empty name is refused and changes nothing", async () => {
    const { page, api } = person;
    const phone = await api.post("/api/devices", {
      fingerprint: phoneFingerprint,
      deviceName: "Safari on iOS",
      deviceType: "mobile",
      os: "iOS",
      browser: "Safari",
    });
    expect(phone.status).toBe(201);
    phoneId = (phone.body as { device: { id: string } }).device.id;
    await page.reload();
    await card("Safari on iOS").waitFor();
    await screenshot(page, "screenshots/devices-list.png");

    await card("Safari on iOS").getByLabel("Name of Safari on iOS").fill("   ");
    await card("Safari on iOS").getByRole("button", { name: "Rename" }).click();
    await expect
      .poll(() => page.locator("#devices-error").innerText())
      .toBe("A device name cannot be empty");
    expect((await serverDevices()).some((d) => d.device_name === "Safari on iOS")).toBe(true);

    await card("Safari on iOS").getByLabel("Name of Safari on iOS").fill("Kim's phone");
    await card("Safari on iOS").getByRole("button", { name: "Rename" }).click();
    await card("Kim's phone").waitFor();
    await expect
      .poll(async () => (await serverDevices()).find((d) => d.id === phoneId)?.device_name)
      .toBe("Kim's phone");
  });

  it("changes trust both ways", async () => {
    const { page } = person;
    await card("Kim's phone").getByLabel("Trust of Kim's phone").selectOption("recognized");
    await expect
      .poll(async () => (await serverDevices()).find((d) => d.id === phoneId)?.trust_level)
      .toBe("recognized");
    await page.locator("#devices li[data-trust=recognized]", { hasText: "Kim's phone" }).waitFor();
    await card("Kim's phone").getByLabel("Trust of Kim's phone").selectOption("trusted");
    await expect
      .poll(async () => (await serverDevices()).find((d) => d.id === phoneId)?.trust_level)
      .toBe("trusted");
  });

  it("removes a device", async () => {
    const { page } = person;
    await card("Kim's phone").getByRole("button", { name: "Remove" }).click();
    await expect.poll(() => card("Kim's phone").count()).toBe(0);
    expect((await serverDevices()).map((d) => d.id)).not.toContain(phoneId);
    expect(await page.locator("#devices li").count()).toBe(1);
  });
});
