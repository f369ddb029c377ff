import { DEV_PASSWORD } from "../../../scripts/lib/dev-users.mjs";
import { base32Decode, referenceTotp } from "../../../test/support/rfc6238";
import type { Page } from "./browser";
import { openSection } from "./journey";

/** The authenticator's code for a 30-second time step (RFC 6238). */
export const codeAt = (secret: string, step: number) =>
  referenceTotp(base32Decode(secret), step * 30);

/**
 * Turns 2FA on in Security with the code of the current step, signs out, and signs in again at
 * the provider with that same code, as a person who just enrolled would: the sign-in's 2FA dialog
 * is then open, having been given a code used moments ago. The secret and the step are returned
 * for the codes that follow.
 */
export async function signInWithTheEnrolmentCode(page: Page, email: string) {
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
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(DEV_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  const dialog = page.getByRole("dialog", { name: "Two-factor code" });
  await dialog.getByLabel("Authenticator code").fill(code);
  await dialog.getByRole("button", { name: "Verify" }).click();
  return { dialog, secret, step };
}
