import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { DEV_PASSWORD } from "../../scripts/lib/dev-users.mjs";
import { base32Decode, referenceTotp } from "../../test/support/rfc6238";
import { apiAs } from "./support/api";
import {
  dashboardReady,
  launch,
  newUser,
  screenshot,
  submitSignIn,
  type Browser,
  type Page,
} from "./support/browser";
import { base, d1, openSection, personContext } from "./support/journey";

// Account 2FA in force (DECISIONS D20) and "confirm it's you" (D3) in the web app: the code prompt
// after the provider's sign-in, and the dead man's switch (a 90-second step-up) saved ten minutes
// after signing in, once with a code and once with a fresh sign-in at the provider.
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterEach(async () => {
  await setProviderAuthAge(0);
});

afterAll(async () => {
  await browser?.close();
});

/** The provider's sign-ins happen `seconds` before now: "ten minutes later" without waiting. */
async function setProviderAuthAge(seconds: number) {
  const res = await fetch(`${server().idpIssuer}/dev/auth-age`, {
    method: "POST",
    body: new URLSearchParams({ seconds: String(seconds) }),
  });
  if (res.status !== 204) throw new Error(`auth-age: ${res.status}`);
}

/** The next code an authenticator shows; each accepted one is used up (a step is never taken twice). */
const lastStep = new Map<string, number>();
async function nextCode(secret: string): Promise<string> {
  const step = Math.max(Math.floor(Date.now() / 30_000), (lastStep.get(secret) ?? 0) + 1);
  lastStep.set(secret, step);
  return referenceTotp(base32Decode(secret), step * 30);
}

async function providerSignIn(page: Page, email: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(DEV_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** A person without 2FA who signed in at the provider ten minutes ago, their vault open in a page. */
async function signedInTenMinutesAgo(name: string) {
  const u = await newUser(name);
  const api = await apiAs(base(), u.token);
  await setProviderAuthAge(600);
  const { context, page } = await personContext(browser);
  await page.goto("/");
  await page.getByRole("link", { name: "Sign in" }).click();
  await providerSignIn(page, u.email);
  await submitSignIn(page, `${name} passphrase 1`);
  await page.waitForURL("**/vault");
  await dashboardReady(page);
  return { u, api, context, page };
}

async function saveSwitch(page: Page, days: string) {
  await page.getByLabel("Days of inactivity before it triggers (7 to 365)").fill(days);
  await page.getByLabel("Remind me this many days before (comma-separated)").fill("3");
  await page.getByRole("button", { name: "Save", exact: true }).click();
}

const signIns = (sub: string) =>
  d1<{ sign_in: string; verified_at: number }>(
    `SELECT sign_in, verified_at FROM two_factor_sign_ins WHERE user_id = '${sub}'`,
  );

describe("account 2FA in force and confirm it's you", () => {
  let inPage: Page;
  let inUser: Awaited<ReturnType<typeof newUser>>;
  let inRecovery: string[];
  it("with 2FA on, a sign-in at the provider asks for the code and the vault's data is refused until then", async () => {
    const u = (inUser = await newUser("twofa-in"));
    const api = await apiAs(base(), u.token);
    const { secret, recoveryCodes } = (await api.post("/api/2fa/enroll")).body as {
      secret: string;
      recoveryCodes: string[];
    };
    expect((await api.post("/api/2fa/verify", { code: await nextCode(secret) })).status).toBe(200);

    inRecovery = recoveryCodes;
    const { page } = await personContext(browser);
    inPage = page;
    await page.goto("/");
    await page.getByRole("link", { name: "Sign in" }).click();
    await providerSignIn(page, u.email);
    const dialog = page.getByRole("dialog", { name: "Two-factor code" });
    await dialog.waitFor();
    await screenshot(page, "screenshots/signin-2fa-prompt.png");
    // The vault's data is refused to this sign-in until the code.
    const before = await page.evaluate(async () => (await fetch("/api/passwords")).json());
    expect(before).toMatchObject({ code: "TWO_FACTOR_REQUIRED", status: 401 });
  });

  it("a wrong code is refused; a recovery code passes, then the passphrase opens the vault", async () => {
    const [page, u, recoveryCodes] = [inPage, inUser, inRecovery];
    const api = await apiAs(base(), u.token);
    const dialog = page.getByRole("dialog", { name: "Two-factor code" });

    await dialog.getByLabel("Authenticator code").fill("000000");
    await dialog.getByRole("button", { name: "Verify" }).click();
    await expect
      .poll(() => dialog.getByRole("alert").innerText())
      .toBe("That code is not right (or was used already): wait for the next one.");
    // A recovery code, as someone without their phone would.
    await dialog.getByRole("button", { name: "Use a recovery code" }).click();
    await dialog.getByLabel("Recovery code").fill(recoveryCodes[0]!);
    await dialog.getByRole("button", { name: "Verify" }).click();
    await page.getByLabel("Master passphrase").waitFor();
    expect(await dialog.count()).toBe(0);
    await submitSignIn(page, "twofa in passphrase 1");
    await page.waitForURL("**/vault");
    await dashboardReady(page);
    const session = await page.evaluate(async () => (await fetch("/api/auth/session")).json());
    expect(session).toEqual({ user: { id: u.sub, email: u.email }, twoFactorRequired: false });
    expect((await api.get("/api/2fa/status")).body.recoveryCodesRemaining).toBe(9);
    await screenshot(page, "screenshots/signin-2fa-vault.png");
  });

  it("the server holds two verified sign-ins: the one that confirmed 2FA and the browser's", async () => {
    expect(signIns(inUser.sub)).toHaveLength(2);
    await inPage.context().close();
  });

  let stepPage: Page;
  let stepUser: Awaited<ReturnType<typeof newUser>>;
  let stepSecret: string;
  it("(2FA on) signs in with a recovery code, as if ten minutes ago", async () => {
    const u = (stepUser = await newUser("twofa-step"));
    const api = await apiAs(base(), u.token);
    const { secret, recoveryCodes } = (await api.post("/api/2fa/enroll")).body as {
      secret: string;
      recoveryCodes: string[];
    };
    expect((await api.post("/api/2fa/verify", { code: await nextCode(secret) })).status).toBe(200);

    // The sign-in happened ten minutes ago, and so did its code (a recovery code here: the
    // authenticator's next code is kept for the confirm step, within the server's one-step window).
    await setProviderAuthAge(600);
    stepSecret = secret;
    const { page } = await personContext(browser);
    stepPage = page;
    await page.goto("/");
    await page.getByRole("link", { name: "Sign in" }).click();
    await providerSignIn(page, u.email);
    const prompt = page.getByRole("dialog", { name: "Two-factor code" });
    await prompt.getByRole("button", { name: "Use a recovery code" }).click();
    await prompt.getByLabel("Recovery code").fill(recoveryCodes[1]!);
    await prompt.getByRole("button", { name: "Verify" }).click();
    await submitSignIn(page, "twofa step passphrase 1");
    await page.waitForURL("**/vault");
    await dashboardReady(page);
  });

  it("(2FA on) ten minutes pass: the code given at sign-in is ten minutes old too", async () => {
    d1(
      `UPDATE two_factor_sign_ins SET verified_at = verified_at - 600, fresh_at = fresh_at - 600 WHERE user_id = '${stepUser.sub}'`,
    );
  });

  it("ten minutes after signing in, saving the switch asks for a code and then saves (2FA on)", async () => {
    const [page, u, secret] = [stepPage, stepUser, stepSecret];
    const api = await apiAs(base(), u.token);
    await openSection(page, "Dead man's switch");
    await saveSwitch(page, "45");
    const confirm = page.getByRole("dialog", { name: "Confirm it's you" });
    await confirm.waitFor();
    await screenshot(page, "screenshots/step-up-code.png");
    // What the person typed is still there behind the dialog.
    expect(
      await page.getByLabel("Days of inactivity before it triggers (7 to 365)").inputValue(),
    ).toBe("45");
    await confirm.getByLabel("Authenticator code").fill(await nextCode(secret));
    await confirm.getByRole("button", { name: "Confirm" }).click();
    await expect.poll(() => page.locator("#dms-status").getAttribute("data-status")).toBe("idle");
    expect(await page.locator("#dms-form-error").innerText()).toBe("");
    expect((await api.get("/api/dead-man-switch")).body.switch).toMatchObject({
      enabled: true,
      inactivity_days: 45,
      notify_at_days: [3],
    });
    await page.context().close();
  });

  it("ten minutes after signing in, saving the switch signs in again at the provider in a window and then saves (2FA off)", async () => {
    const { u, api, context, page } = await signedInTenMinutesAgo("step-idp");

    await openSection(page, "Dead man's switch");
    const sectionUrl = page.url();
    await saveSwitch(page, "60");
    const confirm = page.getByRole("dialog", { name: "Confirm it's you" });
    await confirm.waitFor();
    await screenshot(page, "screenshots/step-up-provider.png");
    // Ten minutes have passed: this sign-in at the provider is a fresh one.
    await setProviderAuthAge(0);
    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      confirm.getByRole("button", { name: "Sign in again" }).click(),
    ]);
    await popup.getByLabel("Email").waitFor();
    await providerSignIn(popup, u.email);
    await popup.waitForEvent("close");
    await expect.poll(() => page.locator("#dms-status").getAttribute("data-status")).toBe("idle");
    expect(await confirm.count()).toBe(0);
    // The same page: the vault stayed open and what was typed was saved.
    expect(page.url()).toBe(sectionUrl);
    expect((await api.get("/api/dead-man-switch")).body.switch).toMatchObject({
      enabled: true,
      inactivity_days: 60,
      notify_at_days: [3],
    });
    await context.close();
  });

  it("ten minutes after signing in, turning 2FA on signs in again at the provider first; the owner is told", async () => {
    const { u, api, context, page } = await signedInTenMinutesAgo("enrol-stale");

    // A session this old may not enrol a second factor of its own (D20): nothing is made until the
    // person has signed in again.
    await openSection(page, "Security");
    await page.getByRole("button", { name: "Turn on 2FA" }).click();
    const confirm = page.getByRole("dialog", { name: "Confirm it's you" });
    await confirm.waitFor();
    expect((await api.get("/api/2fa/status")).body).toMatchObject({
      enrolled: false,
      pending: false,
    });
    await screenshot(page, "screenshots/enrol-step-up.png");
    await setProviderAuthAge(0);
    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      confirm.getByRole("button", { name: "Sign in again" }).click(),
    ]);
    await popup.getByLabel("Email").waitFor();
    await providerSignIn(popup, u.email);
    await popup.waitForEvent("close");
    const secret = await page.locator("#twofa-secret").innerText();
    expect((await api.get("/api/2fa/status")).body).toMatchObject({
      enrolled: false,
      pending: true,
    });
    await page.getByLabel("Code from the app").fill(await nextCode(secret));
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect
      .poll(() => page.locator("#twofa-state").getAttribute("data-enrolled"))
      .toBe("true");
    // Told in the app and by mail, with no secret in either (read on the server: the test's own
    // token is another sign-in, which now owes its code).
    const notes = d1<{ type: string; body: string }>(
      `SELECT type, body FROM notifications WHERE user_id = '${u.sub}'`,
    );
    expect(notes.map((n) => n.type)).toContain("two_factor_enabled");
    expect(JSON.stringify(notes)).not.toContain(secret);
    const mails = d1<{ kind: string; text_body: string }>(
      `SELECT kind, text_body FROM outbound_emails WHERE to_address = '${u.email.toLowerCase()}' AND kind LIKE 'two_factor.%'`,
    );
    expect(mails.map((m) => m.kind)).toEqual(["two_factor.enabled"]);
    expect(mails[0]!.text_body).not.toContain(secret);
    await context.close();
  });
});
