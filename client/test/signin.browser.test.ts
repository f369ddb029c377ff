import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_PASSWORD } from "../../scripts/lib/dev-users.mjs";
import {
  dashboardReady,
  launch,
  newUser,
  screenshot,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { base, personContext } from "./support/journey";

// Sign-in by a real OpenID Connect redirect (authorization code with PKCE) through the local
// provider's login page; the worker sets the HTTP-only access_token cookie at the callback.
const PASSPHRASE = "oidc passphrase 1";
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;

beforeAll(async () => {
  user = await newUser("oidc");
  browser = await launch();
  ({ context, page } = await personContext(browser));
});

afterAll(async () => {
  await browser?.close();
});

const authCookie = async () => (await context.cookies()).find((c) => c.name === "access_token");
const claims = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

describe("sign-in with the OpenID provider", () => {
  it("refuses a wrong password at the provider, and sets no cookie", async () => {
    await page.goto("/");
    await screenshot(page, "screenshots/signin-start.png");
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname.startsWith("/interaction/"));
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => page.getByRole("alert").innerText())
      .toBe("Unknown email or wrong password");
    await screenshot(page, "screenshots/signin-provider-refused.png");
    expect(await authCookie()).toBeUndefined();
  });

  it("comes back with an HTTP-only cookie holding the provider's access token, then the passphrase opens the vault", async () => {
    const before = Math.floor(Date.now() / 1000) - 5;
    await page.getByLabel("Password").fill(DEV_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.origin === base() && u.pathname === "/");
    await expect.poll(() => page.locator("#signed-in-as").innerText()).toBe(user.email);
    const cookie = (await authCookie())!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    const c = claims(cookie.value);
    expect(c).toMatchObject({
      sub: user.sub,
      email: user.email,
      aud: "credential-vault",
      client_id: "credential-vault-web",
    });
    // A fresh sign-in: auth_time is now, which step-up (DECISIONS D3) relies on.
    expect(c.auth_time as number).toBeGreaterThanOrEqual(before);
    // The attempt's cookie (state, nonce, verifier) is gone, and the page cannot read the token.
    expect((await context.cookies()).some((k) => k.name === "oidc_flow")).toBe(false);
    expect(await page.evaluate(() => document.cookie.includes("access_token"))).toBe(false);
    await screenshot(page, "screenshots/signin-passphrase.png");

    // A new vault: its passphrase is chosen here, typed twice, with its strength and what losing it means.
    expect(await page.locator("#passphrase-loss").innerText()).toContain(
      "cannot recover or reset it; without it your vault cannot be opened",
    );
    await page.getByLabel("Master passphrase").fill("short");
    await page.getByRole("button", { name: "Create vault" }).click();
    await expect
      .poll(() => page.getByRole("alert").innerText())
      .toBe("The master passphrase needs at least 8 characters");
    expect(new URL(page.url()).pathname).toBe("/");

    // The verdict appears in room kept for it: the button below does not move, at desktop and phone widths.
    const button = page.getByRole("button", { name: "Create vault" });
    const buttonTop = async () => (await button.boundingBox())!.y;
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1280, height: 900 },
    ]) {
      await page.setViewportSize(viewport);
      await page.getByLabel("Master passphrase").fill("");
      await expect
        .poll(() => page.locator("#passphrase-strength-text").innerText())
        .toMatch(/^Its strength shows here as you type/);
      const before = await buttonTop();
      await page.getByLabel("Master passphrase").fill("password1");
      await expect
        .poll(() => page.locator("#passphrase-strength-text").innerText())
        .toMatch(/^Very weak: /);
      expect(await buttonTop()).toBe(before);
      if (viewport.width < 600) await screenshot(page, "screenshots/signin-new-vault-phone.png");
      await page.getByLabel("Master passphrase").fill(PASSPHRASE);
      await expect
        .poll(() => page.locator("#passphrase-strength-text").innerText())
        .toMatch(/^(Strong|Very strong): /);
      expect(await buttonTop()).toBe(before);
    }
    expect(
      await page.locator("#passphrase-strength meter").evaluate((m: HTMLMeterElement) => m.value),
    ).toBeGreaterThanOrEqual(3);
    await page.getByLabel("Type it again").fill(`${PASSPHRASE}x`);
    await page.getByRole("button", { name: "Create vault" }).click();
    await expect
      .poll(() => page.getByRole("alert").innerText())
      .toBe("The two passphrases differ: type the same one twice");
    expect(new URL(page.url()).pathname).toBe("/");
    await screenshot(page, "screenshots/signin-new-vault.png");

    await page.getByLabel("Type it again").fill(PASSPHRASE);
    await page.getByRole("button", { name: "Create vault" }).click();
    await page.waitForURL((u) => u.pathname === "/vault");
    await dashboardReady(page);
    expect(await page.locator("#user").innerText()).toBe(user.email);
    // The cookie's token is the API identity: the vault's own calls succeed with it.
    expect(await page.evaluate(async () => (await fetch("/api/auth/session")).json())).toEqual({
      user: { id: user.sub, email: user.email },
      twoFactorRequired: false,
    });
  });

  it("refuses a callback that this browser did not start, with a message and no cookie", async () => {
    const other = await personContext(browser);
    await other.page.goto(`/api/auth/callback?code=stolen-code&state=forged-state`);
    await other.page.waitForURL((u) => u.pathname === "/");
    await expect
      .poll(() => other.page.getByRole("alert").innerText())
      .toBe("Sign-in failed: The sign-in attempt expired or was started elsewhere");
    expect((await other.context.cookies()).some((k) => k.name === "access_token")).toBe(false);
    await screenshot(other.page, "screenshots/signin-refused-callback.png");
    await other.context.close();
  });

  it("never redirects off the app after sign-in, whatever `next` says", async () => {
    const other = await personContext(browser);
    await other.page.goto(`/api/auth/login?next=${encodeURIComponent("//evil.example/x")}`);
    await other.page.getByLabel("Email").fill(user.email);
    await other.page.getByLabel("Password").fill(DEV_PASSWORD);
    await other.page.getByRole("button", { name: "Sign in" }).click();
    await other.page.waitForURL((u) => u.origin === base() && u.pathname === "/");
    expect(new URL(other.page.url()).searchParams.get("next")).toBe("/vault");
    await other.context.close();
  });

  it("signing out clears the HTTP-only cookie through the worker", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    await expect.poll(async () => (await authCookie()) === undefined).toBe(true);
    await page.getByRole("link", { name: "Sign in" }).waitFor();
    expect(await (await page.request.get(`${base()}/api/auth/session`)).json()).toEqual({
      user: null,
      twoFactorRequired: false,
    });
  });
});
