import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_PASSWORD } from "../../scripts/lib/dev-users.mjs";
import { base32Decode, referenceTotp } from "../../test/support/rfc6238";
import { signedInPerson } from "./support/account";
import { dashboardReady, launch, screenshot, submitSignIn, type Browser } from "./support/browser";
import { d1, openSection } from "./support/journey";

// Right after turning 2FA on, signing in again within the same 30 seconds with the code just used:
// the code is refused (a time step is accepted once, RFC 6238 section 5.2), and the page says why
// and offers the recovery code, instead of calling a right code wrong. The next code opens it.
const PASSPHRASE = "used code passphrase 16";
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const codeAt = (secret: string, step: number) => referenceTotp(base32Decode(secret), step * 30);

describe("a 2FA code used moments ago", () => {
  it("enrol, sign out, sign in with the same code: told to wait for the next code, offered a recovery code; the next code opens the vault", async () => {
    const person = await signedInPerson(browser, "usedcode", PASSPHRASE);
    const { page, user } = person;
    await openSection(page, "Security");
    await page.getByRole("button", { name: "Turn on 2FA" }).click();
    await page.getByRole("img", { name: "QR code for your authenticator app" }).waitFor();
    const secret = await page.locator("#twofa-secret").innerText();
    const step = Math.floor(Date.now() / 30_000);
    const code = await codeAt(secret, step);
    await page.getByLabel("Code from the app").fill(code);
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.locator("#twofa-state[data-enrolled=true]").waitFor();

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(DEV_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    const dialog = page.getByRole("dialog", { name: "Two-factor code" });
    await dialog.getByLabel("Authenticator code").fill(code);
    await dialog.getByRole("button", { name: "Verify" }).click();
    await expect
      .poll(() => dialog.getByRole("alert").innerText())
      .toBe("This code was just used. Wait for the next code, or use a recovery code.");
    await expect
      .poll(() => dialog.getByRole("button", { name: "Use a recovery code" }).isVisible())
      .toBe(true);
    await screenshot(page, "screenshots/signin-2fa-used-code.png");
    // Refused, so nothing was verified for this sign-in: only the confirmation's step is used.
    const [row] = d1<{ last_used_step: number }>(
      `SELECT last_used_step FROM two_factor WHERE user_id = '${user.sub}'`,
    );
    expect(row!.last_used_step).toBe(step);
    expect(
      d1(`SELECT sign_in FROM two_factor_sign_ins WHERE user_id = '${user.sub}'`),
    ).toHaveLength(1);

    // The next code (the authenticator's next 30 seconds; the server takes one step either side).
    await dialog.getByLabel("Authenticator code").fill(await codeAt(secret, step + 1));
    await dialog.getByRole("button", { name: "Verify" }).click();
    await page.getByLabel("Master passphrase").waitFor();
    await submitSignIn(page, PASSPHRASE);
    await page.waitForURL("**/vault");
    await dashboardReady(page);
    expect(
      d1(`SELECT sign_in FROM two_factor_sign_ins WHERE user_id = '${user.sub}'`),
    ).toHaveLength(2);
  });
});
