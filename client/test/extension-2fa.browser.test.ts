import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { signDevToken } from "../../scripts/lib/dev-identity.mjs";
import { startLoginSite } from "../../test/support/login-site";
import { base32Decode, referenceTotp } from "../../test/support/rfc6238";
import { apiAs } from "./support/api";
import { newUser, screenshot, type BrowserContext } from "./support/browser";
import {
  buildExtension,
  deriveVaultKeys,
  extensionStatus,
  frameText,
  launchWithExtension,
  newProfile,
  openFillMenu,
  openPage,
  openPopup,
  seedEntries,
} from "./support/extension";

// Account 2FA in force in the extension (DECISIONS D20): it carries the web app's sign-in, and a
// sign-in that has not given its code fills nothing until the popup has taken the code.
const PASSPHRASE = "extension 2fa passphrase";
const base = server().baseUrl;
let site: Awaited<ReturnType<typeof startLoginSite>>;
let context: BrowserContext;
let user: Awaited<ReturnType<typeof newUser>>;
let secret: string;
let recoveryCodes: string[];
let loginUrl: string;

/** The code an authenticator shows one step ahead: the step that confirmed enrollment is used up. */
const codeAhead = () =>
  referenceTotp(base32Decode(secret), (Math.floor(Date.now() / 30_000) + 1) * 30);

beforeAll(async () => {
  site = await startLoginSite();
  loginUrl = `http://login.site.test:${new URL(site.url).port}/login`;
  await fetch(`${site.url}/register`, {
    method: "POST",
    body: JSON.stringify({ username: "alice", password: "alice-2fa-pass" }),
  });
  buildExtension(base);
  user = await newUser("ext-2fa");
  await seedEntries(base, user, await deriveVaultKeys(PASSPHRASE, user.sub), [
    { name: "Test site", website: "site.test", username: "alice", password: "alice-2fa-pass" },
  ]);
  // 2FA turned on and confirmed from another sign-in (the one that confirms it is verified by it).
  const api = await apiAs(base, user.token);
  ({ secret, recoveryCodes } = (await api.post("/api/2fa/enroll")).body as {
    secret: string;
    recoveryCodes: string[];
  });
  expect(
    (
      await api.post("/api/2fa/verify", {
        code: await referenceTotp(base32Decode(secret), Date.now() / 1000),
      })
    ).status,
  ).toBe(200);
  ({ context } = await launchWithExtension(newProfile(), base));
  await newSignIn(120);
});

/** The person signs in to the web app again (another auth_time): that sign-in owes its code. */
async function newSignIn(authAge: number) {
  const token = (await signDevToken({
    sub: user.sub,
    email: user.email,
    issuer: server().idpIssuer,
    authAge,
  })) as string;
  await context.addCookies([
    { name: "access_token", value: token, url: base, httpOnly: true, sameSite: "Strict" },
  ]);
  const refused = await (await apiAs(base, token)).get("/api/passwords");
  expect(refused.body).toMatchObject({ code: "TWO_FACTOR_REQUIRED", status: 401 });
}

afterAll(async () => {
  await context?.close();
  await site?.close();
});

describe("the extension with account 2FA in force", () => {
  it("fills nothing inline before the code while locked", async () => {
    const page = await openPage(context, loginUrl);
    const menu = await openFillMenu(page);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("0");
    expect(await frameText(menu)).toBe("Credential Vault is locked: open the extension to unlock");
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    await page.close();
  });

  it("asks for the code in the popup, refuses a wrong one, and after the right one lists and fills", async () => {
    const page = await openPage(context, loginUrl);
    const popup = await openPopup(context);
    expect(await popup.locator("body").getAttribute("data-state")).toBe("two-factor");
    expect(await popup.getByLabel("Master passphrase").isVisible()).toBe(false);
    expect(await popup.getByRole("button", { name: "Use a recovery code" }).isVisible()).toBe(true);
    await screenshot(popup, "extension-2fa-popup.png");

    const right = await codeAhead();
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    await popup.getByLabel("Code from your authenticator app").fill(wrong);
    await popup.getByRole("button", { name: "Verify" }).click();
    await expect
      .poll(() => popup.locator("#two-factor-error").innerText())
      .toBe("That code was not accepted");
    expect(await extensionStatus(popup)).toMatchObject({ signedIn: true, twoFactorRequired: true });

    await popup.getByLabel("Code from your authenticator app").fill(right);
    await popup.getByRole("button", { name: "Verify" }).click();
    await popup.locator("body[data-state=locked]").waitFor();
    await popup.getByLabel("Master passphrase").fill(PASSPHRASE);
    await popup.getByRole("button", { name: "Unlock" }).click();
    await popup.locator("body[data-matches='1']").waitFor();
    await popup.getByRole("button", { name: "Fill Test site alice" }).click();
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("alice-2fa-pass");
    expect(await page.getByLabel("Username").inputValue()).toBe("alice");
    await page.close();

    // The inline menu now offers the sign-in too.
    const again = await openPage(context, loginUrl);
    const menu = await openFillMenu(again);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("1");
    expect(await frameText(menu)).toContain("Test site");
    await again.close();
  });

  it("an unlocked vault fills nothing after a new sign-in until its code, here a recovery code", async () => {
    await newSignIn(60);
    const page = await openPage(context, loginUrl);
    const menu = await openFillMenu(page);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("0");
    expect(await frameText(menu)).toBe(
      "Confirm your sign-in: open the extension and enter your two-factor code",
    );
    await screenshot(page, "extension-2fa-inline.png");
    expect(await page.getByLabel("Password").inputValue()).toBe("");

    const popup = await openPopup(context);
    expect(await popup.locator("body").getAttribute("data-state")).toBe("two-factor");
    expect(await popup.locator("#vault").isVisible()).toBe(false);
    await popup.getByRole("button", { name: "Use a recovery code" }).click();
    await popup.getByLabel("Recovery code").fill(recoveryCodes[0]!);
    await popup.getByRole("button", { name: "Verify" }).click();
    // Still unlocked: the list of the page's sign-ins comes back at once.
    await popup.locator("body[data-matches='1']").waitFor();
    expect(await popup.locator("body").getAttribute("data-state")).toBe("unlocked");
    await popup.getByRole("button", { name: "Fill Test site alice" }).click();
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("alice-2fa-pass");
    await page.close();
  });
});
