import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, referenceTotp } from "../../test/support/rfc6238";
import { namedEntry, openEntryTool, qrPng, serverEntry, signedInPerson } from "./support/account";
import { launch, screenshot, type Browser } from "./support/browser";

// Entry TOTP: a secret typed, pasted as an otpauth:// URI, or read from a QR image; live codes with
// the seconds left; copy. The server holds the secret only wrapped by the vault key.
const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DP";
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;
let entryId: string;

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "totp", undefined, [namedEntry("GitHub")]);
  entryId = (await serverEntry(person.api, "GitHub")).id;
});

afterAll(async () => {
  await browser?.close();
});

/** The codes valid around a moment read between `before` and `after` (a step may turn over). */
async function codesBetween(secret: string, before: number, after: number, opts = {}) {
  const key = base32Decode(secret);
  return new Set([
    await referenceTotp(key, before / 1000, opts),
    await referenceTotp(key, after / 1000, opts),
  ]);
}

const shownCode = () => person.page.locator("#totp .totp-code").getAttribute("data-code");

describe("entry TOTP", () => {
  it("refuses a secret that is not base32 or an otpauth URI, and stores nothing", async () => {
    const tool = await openEntryTool(person.page, "GitHub", "totp");
    await tool.getByLabel("Secret or otpauth:// URI").fill("not a secret!");
    await tool.getByRole("button", { name: "Add TOTP" }).click();
    await expect.poll(() => tool.locator("#totp-error").innerText()).toMatch(/not base32/);
    await tool
      .getByLabel("Secret or otpauth:// URI")
      .fill("otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1");
    await tool.getByRole("button", { name: "Add TOTP" }).click();
    await expect.poll(() => tool.locator("#totp-error").innerText()).toMatch(/HOTP/);
    await screenshot(person.page, "screenshots/entry-totp-error.png");
    expect((await person.api.get(`/api/passwords/${entryId}/totp`)).body).toEqual({
      hasTotp: false,
    });
  });

  it("adds a pasted otpauth:// URI: live codes match RFC 6238, and the server holds only ciphertext", async () => {
    const tool = await openEntryTool(person.page, "GitHub", "totp");
    await tool
      .getByLabel("Secret or otpauth:// URI")
      .fill(
        `otpauth://totp/GitHub:alice?secret=${SECRET}&issuer=GitHub&digits=8&period=30&algorithm=SHA256`,
      );
    await tool.getByRole("button", { name: "Add TOTP" }).click();
    const before = Date.now();
    await tool.locator(".totp-code[data-code]").waitFor();
    const code = await shownCode();
    expect(
      await codesBetween(SECRET, before - 1000, Date.now(), { digits: 8, algorithm: "SHA-256" }),
    ).toContain(code);
    expect(await tool.locator(".totp-left").innerText()).toMatch(/^\d{1,2} s left$/);
    await screenshot(person.page, "screenshots/entry-totp-codes.png");

    const stored = (await person.api.get(`/api/passwords/${entryId}/totp`)).body;
    expect(stored).toMatchObject({
      hasTotp: true,
      zeroTrust: true,
      algorithm: "SHA-256",
      digits: 8,
      period: 30,
    });
    const raw = Buffer.from(stored.secretEncrypted.ciphertext, "base64");
    // A 15-byte secret wrapped with AES-GCM: ciphertext plus tag, and none of the secret's bytes in order.
    expect(raw.length).toBe(15 + 16);
    expect(raw.includes(Buffer.from(base32Decode(SECRET)))).toBe(false);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect((await person.api.get(`/api/passwords/${entryId}/totp/code`)).status).toBe(410);
    // The list row now says the entry has TOTP.
    expect((await person.api.entries()).get("GitHub").has_totp).toBe(true);
  });

  it("copies the current code", async () => {
    const tool = await openEntryTool(person.page, "GitHub", "totp");
    await tool.locator(".totp-code[data-code]").waitFor();
    const before = Date.now();
    await tool.getByRole("button", { name: "Copy code" }).click();
    await expect.poll(() => person.page.locator("#toast").innerText()).toMatch(/Code copied/);
    const copied = await person.page.evaluate(() => navigator.clipboard.readText());
    expect(
      await codesBetween(SECRET, before - 1000, Date.now(), { digits: 8, algorithm: "SHA-256" }),
    ).toContain(copied);
  });

  it("keeps showing codes offline, from the configuration this browser saw", async () => {
    await person.context.setOffline(true);
    try {
      const tool = await openEntryTool(person.page, "GitHub", "totp");
      await tool.locator(".totp-code[data-code]").waitFor();
      expect(await shownCode()).toMatch(/^\d{8}$/);
    } finally {
      await person.context.setOffline(false);
    }
  });

  it("removes the secret, then reads a new one from a QR code image", async () => {
    const tool = await openEntryTool(person.page, "GitHub", "totp");
    await tool.getByRole("button", { name: "Remove TOTP" }).click();
    await tool.getByRole("button", { name: "Add TOTP" }).waitFor();
    expect((await person.api.get(`/api/passwords/${entryId}/totp`)).body).toEqual({
      hasTotp: false,
    });

    const other = "KRSXG5CTMVRXEZLUKN2XAZLSKNSWG4TFOQ";
    const uri = `otpauth://totp/Example:alice@example.test?secret=${other}&issuer=Example`;
    await tool
      .getByLabel("Or a QR code image")
      .setInputFiles({ name: "qr.png", mimeType: "image/png", buffer: qrPng(uri) });
    await expect.poll(() => tool.getByLabel("Secret or otpauth:// URI").inputValue()).toBe(uri);
    await tool.getByRole("button", { name: "Add TOTP" }).click();
    const before = Date.now();
    await tool.locator(".totp-code[data-code]").waitFor();
    expect(await codesBetween(other, before - 1000, Date.now())).toContain(await shownCode());
    expect((await person.api.get(`/api/passwords/${entryId}/totp`)).body).toMatchObject({
      hasTotp: true,
      algorithm: "SHA-1",
      digits: 6,
    });
  });

  it("says so when an image holds no QR code", async () => {
    const tool = await openEntryTool(person.page, "GitHub", "totp");
    await tool.getByRole("button", { name: "Remove TOTP" }).click();
    await tool.getByRole("button", { name: "Add TOTP" }).waitFor();
    const blank = qrPng("x").fill(0, 60); // a corrupted image: the decoder cannot read it
    await tool
      .getByLabel("Or a QR code image")
      .setInputFiles({ name: "photo.png", mimeType: "image/png", buffer: blank });
    await expect
      .poll(() => tool.locator("#totp-error").innerText())
      .toMatch(/not an image|No QR code/);
    expect(await tool.getByLabel("Secret or otpauth:// URI").inputValue()).toBe("");
  });
});
