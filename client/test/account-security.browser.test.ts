import jsQR from "jsqr";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, referenceTotp } from "../../test/support/rfc6238";
import { signedInPerson } from "./support/account";
import { launch, screenshot, type Browser } from "./support/browser";
import { openSection } from "./support/journey";

// Account 2FA: enrol with a QR code, confirm with a code, recovery codes shown once and
// downloadable, and turning it off again.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "twofa");
});

afterAll(async () => {
  await browser?.close();
});

const codeNow = async (secret: string) => referenceTotp(base32Decode(secret), Date.now() / 1000);

describe("account 2FA", () => {
  let secret: string;
  let recovery: string[];

  it("enrols: QR code, key, recovery codes (downloadable) — and nothing is on until a code confirms it", async () => {
    const { page, api } = person;
    await openSection(page, "Security");
    await expect.poll(() => page.locator("#twofa-state").innerText()).toBe("Off");
    await page.getByRole("button", { name: "Turn on 2FA" }).click();
    await page.getByRole("img", { name: "QR code for your authenticator app" }).waitFor();
    secret = await page.locator("#twofa-secret").innerText();
    recovery = await page.locator("#recovery-codes li").allInnerTexts();
    expect(recovery.length).toBeGreaterThanOrEqual(8);
    await screenshot(page, "screenshots/security-enrol.png");

    const [file] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download recovery codes" }).click(),
    ]);
    const text = readFileSync((await file.path())!, "utf8");
    for (const c of recovery) expect(text).toContain(c);

    // The QR code on the page carries the otpauth URI with this secret: read it back with jsQR.
    const img = await page.evaluate(() => {
      const canvas = document.querySelector(
        "canvas[aria-label='QR code for your authenticator app']",
      ) as HTMLCanvasElement;
      const d = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
      return { width: d.width, height: d.height, data: Array.from(d.data) };
    });
    const decoded = jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data ?? "";
    expect(decoded).toMatch(/^otpauth:\/\/totp\//);
    expect(new URL(decoded).searchParams.get("secret")).toBe(secret);
    expect((await api.get("/api/2fa/status")).body).toMatchObject({
      enrolled: false,
      pending: true,
    });
  });

  it("a wrong code is refused with a message, and 2FA stays off", async () => {
    const { page, api } = person;
    await page.getByLabel("Code from the app").fill("12");
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect.poll(() => page.locator("#twofa-code-error").innerText()).toMatch(/6-digit code/);
    const wrong = String((Number(await codeNow(secret)) + 500000) % 1000000).padStart(6, "0");
    await page.getByLabel("Code from the app").fill(wrong);
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect.poll(() => page.locator("#twofa-code-error").innerText()).not.toBe("");
    expect((await api.get("/api/2fa/status")).body.enrolled).toBe(false);
  });

  it("the right code turns it on; the recovery codes are not shown again", async () => {
    const { page, api } = person;
    await page.getByLabel("Code from the app").fill(await codeNow(secret));
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect
      .poll(() => page.locator("#twofa-state").getAttribute("data-enrolled"))
      .toBe("true");
    expect(await page.locator("#recovery-codes").count()).toBe(0);
    expect((await api.get("/api/2fa/status")).body).toMatchObject({
      enrolled: true,
      method: "totp",
    });
    await page.reload();
    await page.locator("#twofa-state[data-enrolled=true]").waitFor();
    expect(await page.locator("#recovery-codes").count()).toBe(0);
    expect(await page.content()).not.toContain(recovery[0]);
    await screenshot(page, "screenshots/security-on.png");
  });

  it("turns off with a recovery code", async () => {
    const { page, api } = person;
    await page.getByLabel(/to turn 2FA off/).fill(recovery[1]!);
    await page.getByRole("button", { name: "Turn off 2FA" }).click();
    await expect.poll(() => page.locator("#twofa-state").innerText()).toBe("Off");
    expect((await api.get("/api/2fa/status")).body.enrolled).toBe(false);
  });
});
