import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInWithEntries } from "./support/seed";
import { fromBase64 } from "../../src/kernel/base64";
import { deriveExtractableVaultKey } from "../../core/crypto/crypto";
import { apiAs } from "./support/api";
import {
  dashboardReady,
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type Page,
} from "./support/browser";
import { base, d1, openSection, personContext, useContactKey } from "./support/journey";

// Olivia sets up her dead man's switch and names Rita. The steps that need a sign-in within 90
// seconds (saving, adding and removing recipients) run first; the check-in, which needs none, last.
// The switch firing is not produced here: it runs on a Durable Object alarm that wrangler dev
// offers no way to fire early, so released transfers and their claim are covered by the worker
// suite (test/dead-man-switch) and the crypto by the emergency journey, which uses the same wrap.
const PASS_O = "olivia passphrase 15d";
const SECRET = "pw-dms-9931";
let browser: Browser;
let olivia: Page;
let rita: Page;
let o: Awaited<ReturnType<typeof newUser>>;
let r: Awaited<ReturnType<typeof newUser>>;
let oApi: Awaited<ReturnType<typeof apiAs>>;
let rApi: Awaited<ReturnType<typeof apiAs>>;

beforeAll(async () => {
  [o, r] = await Promise.all([newUser("olivia"), newUser("rita")]);
  [oApi, rApi] = await Promise.all([apiAs(base(), o.token), apiAs(base(), r.token)]);
  browser = await launch();
  [olivia, rita] = await Promise.all([personContext(browser), personContext(browser)]).then((all) =>
    all.map((p) => p.page),
  );
});

afterAll(async () => {
  await browser?.close();
});

const formError = (p: Page) => p.locator("#dms-form-error").innerText();
const recipientError = (p: Page) => p.locator("#dms-r-error").innerText();
const days = (p: Page) => p.locator("#dms-days").getAttribute("data-days");
async function settings(
  p: Page,
  f: { days?: string; notify?: string; email?: boolean; push?: boolean },
) {
  if (f.days !== undefined)
    await p.getByLabel("Days of inactivity before it triggers (7 to 365)").fill(f.days);
  if (f.notify !== undefined)
    await p.getByLabel("Remind me this many days before (comma-separated)").fill(f.notify);
  if (f.email !== undefined) await p.getByLabel("Email", { exact: true }).setChecked(f.email);
  if (f.push !== undefined) await p.getByLabel("In-app notification").setChecked(f.push);
  await p.getByRole("button", { name: "Save", exact: true }).click();
}
async function addRecipient(p: Page, email: string, passphrase: string, name = "") {
  await p.getByLabel("Recipient's email").fill(email);
  await p.getByLabel("Their name (optional)").fill(name);
  await p.getByLabel("Your master passphrase").fill(passphrase);
  await p.getByRole("button", { name: "Add recipient" }).click();
}

describe("the dead man's switch in the browser", () => {
  it("a recipient-to-be gets a sharing key by opening the page; nothing is released to her", async () => {
    await signInThroughPage(rita, r.token, "rita passphrase 15d");
    await openSection(rita, "Dead man's switch");
    await rita.locator("#dms-transfers-empty:not([hidden])").waitFor();
    expect((await rApi.get("/api/sharing/public-key")).status).toBe(200);
    expect((await rApi.get("/api/dead-man-switch/transfers")).body.transfers).toEqual([]);
  });

  it("refuses bad settings with a clear message and creates nothing", async () => {
    await signInWithEntries(olivia, o, PASS_O, [
      {
        name: "Pension",
        website: "pension.example",
        username: "olivia",
        password: SECRET,
      },
    ]);
    await openSection(olivia, "Dead man's switch");
    await expect
      .poll(() => olivia.locator("#dms-status").innerText())
      .toBe("No dead man's switch is set up. Save the settings below to start one.");
    await addRecipient(olivia, r.email, PASS_O);
    await expect.poll(() => recipientError(olivia)).toBe("Save the switch's settings first");
    for (const d of ["6", "366", "10.5", ""]) {
      await settings(olivia, { days: d });
      await expect
        .poll(() => formError(olivia))
        .toBe("Days of inactivity must be a whole number from 7 to 365");
    }
    await settings(olivia, { days: "30", notify: "7, x" });
    await expect
      .poll(() => formError(olivia))
      .toBe("Reminder days must be whole numbers of at least 1, separated by commas");
    await settings(olivia, { notify: "30" });
    await expect
      .poll(() => formError(olivia))
      .toBe("Each reminder day must be fewer than the 30 days of inactivity");
    await settings(olivia, { notify: "3, 3" });
    await expect.poll(() => formError(olivia)).toBe("Each reminder day may appear only once");
    await settings(olivia, { notify: "7, 3, 1", email: false, push: false });
    await expect.poll(() => formError(olivia)).toBe("Choose at least one way to be reminded");
    await screenshot(olivia, "screenshots/dead-man-switch-bad-input.png");
    expect((await oApi.get("/api/dead-man-switch")).body.switch).toBeNull();
  });

  it("saves the settings: on, 30 days left", async () => {
    await settings(olivia, { days: "30", notify: "7, 3, 1", email: true, push: true });
    await expect.poll(() => olivia.locator("#dms-status").getAttribute("data-status")).toBe("idle");
    expect(await days(olivia)).toBe("30");
    expect(await formError(olivia)).toBe("");
    const s = (await oApi.get("/api/dead-man-switch")).body;
    expect(s.switch).toMatchObject({
      enabled: true,
      inactivity_days: 30,
      notify_at_days: [7, 3, 1],
      notify_via: ["email", "push"],
      confirmation_required: false,
    });
    await screenshot(olivia, "screenshots/dead-man-switch-on.png");
  });

  it("adds Rita with the vault key wrapped for her (ciphertext only); refuses bad recipients", async () => {
    await addRecipient(olivia, o.email, PASS_O);
    await expect.poll(() => recipientError(olivia)).toBe("You cannot name yourself as a recipient");
    await addRecipient(olivia, "", PASS_O);
    await expect
      .poll(() => recipientError(olivia))
      .toBe("Enter the recipient's email address, like name@example.com");
    await addRecipient(olivia, r.email, "");
    await expect
      .poll(() => recipientError(olivia))
      .toBe("Enter your master passphrase: it wraps your vault key for the recipient");
    await addRecipient(olivia, r.email, "wrong passphrase");
    await expect
      .poll(() => recipientError(olivia))
      .toBe("This passphrase does not open the vault: nothing was sent");
    await addRecipient(olivia, "nobody-dms@example.test", PASS_O);
    await expect
      .poll(() => recipientError(olivia))
      .toBe(
        "nobody-dms@example.test has no vault here yet: ask them to sign in and open their vault once, then try again",
      );
    expect((await oApi.get("/api/dead-man-switch")).body.recipients).toEqual([]);

    await addRecipient(olivia, r.email, PASS_O, "Rita");
    await useContactKey(olivia, r.email);
    const row = olivia.locator("#dms-recipient-rows tr", { hasText: r.email });
    await row.waitFor();
    expect(await row.locator("td").nth(2).innerText()).toBe("pending");
    await screenshot(olivia, "screenshots/dead-man-switch-recipient.png");
    const [rec] = (await oApi.get("/api/dead-man-switch")).body.recipients;
    expect(rec).toMatchObject({
      recipient_email: r.email,
      recipient_name: "Rita",
      status: "pending",
    });
    const wrap = fromBase64(rec.wrapped_recovery_key);
    expect(wrap.length).toBe(65 + 12 + 32 + 16);
    const raw = new Uint8Array(
      await crypto.subtle.exportKey(
        "raw",
        (await deriveExtractableVaultKey(PASS_O, o.sub, 600_000, 1)).vaultKey,
      ),
    );
    expect(Buffer.from(wrap).indexOf(Buffer.from(raw))).toBe(-1);
    expect(rec.wrapped_recovery_key).not.toContain(SECRET);
  });

  it("removes Rita and her wrapped key", async () => {
    await olivia.getByRole("button", { name: `Remove ${r.email}` }).click();
    await olivia.locator("#dms-recipients-empty:not([hidden])").waitFor();
    expect((await oApi.get("/api/dead-man-switch")).body.recipients).toEqual([]);
  });

  it("a check-in moves the days left back to the full period", async () => {
    // The stored trigger is moved ten days closer. Not last_check_in: a check-in older than
    // Olivia's sign-in would be reset by that sign-in (D7), as it should.
    d1(
      `UPDATE dead_man_switches SET next_trigger_at = '${new Date(Date.now() + 20 * 86_400_000).toISOString()}' WHERE user_id = '${o.sub}'`,
    );
    await olivia.reload();
    await dashboardReady(olivia);
    await expect.poll(() => days(olivia)).toBe("20");
    await screenshot(olivia, "screenshots/dead-man-switch-20-days.png");
    await olivia.getByRole("button", { name: "Check in" }).click();
    await expect.poll(() => days(olivia)).toBe("30");
    await expect
      .poll(() => olivia.locator("#dms-log li").first().innerText())
      .toMatch(/^Checked in · /);
    expect((await oApi.get("/api/dead-man-switch")).body.days_remaining).toBe(30);
  });
});
