import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson } from "./support/account";
import { dashboardReady, launch, screenshot, submitSignIn, type Browser } from "./support/browser";
import { d1 } from "./support/journey";
import { codeAt, signInWithTheEnrolmentCode } from "./support/two-factor";

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

describe("a 2FA code used moments ago", () => {
  it("enrol, sign out, sign in with the same code: told to wait for the next code, offered a recovery code; the next code opens the vault", async () => {
    const person = await signedInPerson(browser, "usedcode", PASSPHRASE);
    const { page, user } = person;
    const { dialog, secret, step } = await signInWithTheEnrolmentCode(page, user.email);
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
