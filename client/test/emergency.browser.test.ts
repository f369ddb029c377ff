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
import { base, inviteToken, openSection, personContext, useContactKey } from "./support/journey";

// Three people, three browsers: Olivia names Carl and Dana as emergency contacts. Carl accepts
// through the mailed link, asks, is approved and reads Olivia's vault in his browser; Olivia then
// changes his waiting period and revokes him. Dana asks and is denied. The server relays only a
// wrap of Olivia's vault key made for Carl's sharing key.
const PASS_O = "olivia passphrase 15";
const SECRET = "pw-bank-4417-emergency";
let browser: Browser;
let olivia: Page;
let carl: Page;
let dana: Page;
let o: Awaited<ReturnType<typeof newUser>>;
let c: Awaited<ReturnType<typeof newUser>>;
let d: Awaited<ReturnType<typeof newUser>>;
let oApi: Awaited<ReturnType<typeof apiAs>>;
let cApi: Awaited<ReturnType<typeof apiAs>>;
let dApi: Awaited<ReturnType<typeof apiAs>>;

beforeAll(async () => {
  [o, c, d] = await Promise.all([newUser("olivia"), newUser("carl"), newUser("dana")]);
  [oApi, cApi, dApi] = await Promise.all([
    apiAs(base(), o.token),
    apiAs(base(), c.token),
    apiAs(base(), d.token),
  ]);
  browser = await launch();
  [olivia, carl, dana] = await Promise.all([
    personContext(browser),
    personContext(browser),
    personContext(browser),
  ]).then((all) => all.map((p) => p.page));
});

afterAll(async () => {
  await browser?.close();
});

const contactRow = (p: Page, email: string) => p.locator("#contact-rows tr", { hasText: email });
const ownerRow = (p: Page) => p.locator("#owner-rows tr", { hasText: o.email });
const statusOf = (row: ReturnType<Page["locator"]>) => row.locator("td").nth(1).innerText();
const invite = async (p: Page, email: string, hours: string, passphrase: string) => {
  await p.getByLabel("Contact's email").fill(email);
  await p.getByLabel("Waiting period (hours, 1 to 720)").fill(hours);
  await p.getByLabel("Your master passphrase").fill(passphrase);
  await p.getByRole("button", { name: "Invite", exact: true }).click();
};
const inviteError = (p: Page) => p.locator("#invite-error").innerText();

async function reopen(p: Page) {
  await p.reload();
  await dashboardReady(p);
  await p.getByRole("heading", { level: 1, name: "Emergency access" }).waitFor();
}

/** Follows the mailed link in the contact's browser and accepts. */
async function acceptByLink(p: Page, email: string) {
  await p.goto(`/emergency/${inviteToken(email)}`);
  await dashboardReady(p);
  await p.getByRole("button", { name: "Accept invitation" }).click();
  await p.waitForURL("**/emergency");
  await expect.poll(() => statusOf(ownerRow(p))).toBe("active");
}

describe("emergency access between two people", () => {
  it("contacts get a sharing key by opening the page; nobody is named yet", async () => {
    for (const [page, user, pass] of [
      [carl, c, "carl passphrase 15"],
      [dana, d, "dana passphrase 15"],
    ] as const) {
      await signInThroughPage(page, user.token, pass);
      await openSection(page, "Emergency access");
      await page.locator("#owners-empty:not([hidden])").waitFor();
    }
    expect((await cApi.get("/api/sharing/public-key")).status).toBe(200);
    expect((await dApi.get("/api/sharing/public-key")).status).toBe(200);
    await screenshot(carl, "screenshots/emergency-empty.png");
  });

  it("refuses bad input with a clear message and names nobody", async () => {
    await signInWithEntries(olivia, o, PASS_O, [
      {
        name: "Bank",
        website: "bank.example",
        username: "olivia",
        password: SECRET,
        notes: "the joint account",
      },
    ]);
    await openSection(olivia, "Emergency access");
    await invite(olivia, "", "24", PASS_O);
    await expect
      .poll(() => inviteError(olivia))
      .toBe("Enter the contact's email address, like name@example.com");
    await invite(olivia, o.email, "24", PASS_O);
    await expect
      .poll(() => inviteError(olivia))
      .toBe("You cannot name yourself as your emergency contact");
    for (const hours of ["0", "721", "2.5", ""]) {
      await invite(olivia, c.email, hours, PASS_O);
      await expect
        .poll(() => inviteError(olivia))
        .toBe("The waiting period must be a whole number of hours from 1 to 720");
    }
    await invite(olivia, c.email, "24", "");
    await expect
      .poll(() => inviteError(olivia))
      .toBe("Enter your master passphrase: it wraps your vault key for the contact");
    await invite(olivia, c.email, "24", "not the passphrase");
    await expect
      .poll(() => inviteError(olivia))
      .toBe("This passphrase does not open the vault: nothing was sent");
    await invite(olivia, "nobody-here@example.test", "24", PASS_O);
    await expect
      .poll(() => inviteError(olivia))
      .toBe(
        "nobody-here@example.test has no vault here yet: ask them to sign in and open their vault once, then try again",
      );
    await screenshot(olivia, "screenshots/emergency-bad-input.png");
    expect((await oApi.get("/api/vault/emergency")).body.as_owner).toEqual([]);
  });

  it("Olivia invites Carl with her passphrase; Carl accepts through the mailed /emergency/<token> link", async () => {
    await invite(olivia, c.email, "24", PASS_O);
    await useContactKey(olivia, c.email);
    await expect.poll(() => statusOf(contactRow(olivia, c.email))).toBe("invited");
    expect(await olivia.getByLabel("Your master passphrase").inputValue()).toBe("");
    expect((await oApi.get("/api/vault/emergency")).body.as_owner).toMatchObject([
      { contact_email: c.email, status: "pending_invite", wait_hours: 24 },
    ]);
    await screenshot(olivia, "screenshots/emergency-owner-invited.png");

    await acceptByLink(carl, c.email);
    expect(new URL(carl.url()).pathname).toBe("/emergency");
    await screenshot(carl, "screenshots/emergency-contact-accepted.png");
  });

  it("Carl requests access; Olivia approves", async () => {
    await carl.getByRole("button", { name: `Request access to ${o.email}'s vault` }).click();
    await expect.poll(() => statusOf(ownerRow(carl))).toBe("access requested");
    expect(await ownerRow(carl).locator("td").nth(3).innerText()).toMatch(
      /^granted automatically at /,
    );
    await reopen(olivia);
    await expect.poll(() => statusOf(contactRow(olivia, c.email))).toBe("access requested");
    await screenshot(olivia, "screenshots/emergency-owner-request.png");
    await olivia.getByRole("button", { name: `Approve access for ${c.email}` }).click();
    await expect.poll(() => statusOf(contactRow(olivia, c.email))).toBe("access granted");
  });

  it("Carl reads Olivia's vault, decrypted in his browser; the server held only a wrap made for him", async () => {
    await reopen(carl);
    await carl.getByRole("button", { name: `Open ${o.email}'s vault` }).click();
    await carl.locator('#owner-entries li:has-text("Bank")').waitFor();
    await carl.getByRole("button", { name: "Reveal Bank" }).click();
    await expect
      .poll(() => carl.locator('#owner-entry-fields dd[data-field="password"]').innerText())
      .toBe(SECRET);
    expect(await carl.locator('#owner-entry-fields dd[data-field="username"]').innerText()).toBe(
      "olivia",
    );
    expect(await carl.locator('#owner-entry-fields dd[data-field="notes"]').innerText()).toBe(
      "the joint account",
    );
    await screenshot(carl, "screenshots/emergency-contact-vault.png");

    const contactId = (await cApi.get("/api/vault/emergency")).body.as_contact[0].id;
    const stored = await cApi.get(`/api/vault/emergency/access?contact_id=${contactId}`);
    expect(stored.status).toBe(200);
    const wrap = fromBase64(stored.body.wrapped_access_key);
    // Ephemeral P-256 key (65) || IV (12) || the 32-byte key wrapped with its 16-byte tag.
    expect(wrap.length).toBe(65 + 12 + 32 + 16);
    expect(fromBase64(stored.body.invite_salt).length).toBe(16);
    const raw = new Uint8Array(
      await crypto.subtle.exportKey(
        "raw",
        (await deriveExtractableVaultKey(PASS_O, o.sub, 600_000, 1)).vaultKey,
      ),
    );
    expect(raw.length).toBe(32);
    expect(Buffer.from(wrap).indexOf(Buffer.from(raw))).toBe(-1);
    expect(JSON.stringify(stored.body)).not.toContain(SECRET);
    expect(
      JSON.stringify((await cApi.get(`/api/vault/emergency/${contactId}/vault`)).body),
    ).not.toContain(SECRET);
  });

  it("Olivia changes Carl's waiting period, then revokes him: Carl loses access", async () => {
    await reopen(olivia);
    await olivia.getByLabel(`Waiting period for ${c.email}`, { exact: true }).fill("0");
    await olivia.getByRole("button", { name: `Change waiting period for ${c.email}` }).click();
    await expect
      .poll(() => olivia.locator("#contacts-error").innerText())
      .toBe("The waiting period must be a whole number of hours from 1 to 720");
    await olivia.getByLabel(`Waiting period for ${c.email}`, { exact: true }).fill("72");
    await olivia.getByRole("button", { name: `Change waiting period for ${c.email}` }).click();
    await expect
      .poll(async () => (await oApi.get("/api/vault/emergency")).body.as_owner[0].wait_hours)
      .toBe(72);
    await expect
      .poll(() => olivia.getByLabel(`Waiting period for ${c.email}`, { exact: true }).inputValue())
      .toBe("72");

    await olivia.getByRole("button", { name: `Revoke ${c.email}` }).click();
    await expect.poll(() => statusOf(contactRow(olivia, c.email))).toBe("revoked");
    await screenshot(olivia, "screenshots/emergency-owner-revoked.png");
    await reopen(carl);
    await expect.poll(() => statusOf(ownerRow(carl))).toBe("revoked");
    expect(await carl.getByRole("button", { name: `Open ${o.email}'s vault` }).count()).toBe(0);
    const contactId = (await cApi.get("/api/vault/emergency")).body.as_contact[0].id;
    expect((await cApi.get(`/api/vault/emergency/access?contact_id=${contactId}`)).status).toBe(
      403,
    );
  });

  it("Dana asks and Olivia denies: no access", async () => {
    await reopen(olivia);
    await invite(olivia, d.email, "12", PASS_O);
    await useContactKey(olivia, d.email);
    await expect.poll(() => statusOf(contactRow(olivia, d.email))).toBe("invited");
    await acceptByLink(dana, d.email);
    await dana.getByRole("button", { name: `Request access to ${o.email}'s vault` }).click();
    await expect.poll(() => statusOf(ownerRow(dana))).toBe("access requested");
    await reopen(olivia);
    await olivia.getByRole("button", { name: `Deny access for ${d.email}` }).click();
    await expect.poll(() => statusOf(contactRow(olivia, d.email))).toBe("access denied");
    await reopen(dana);
    await expect.poll(() => statusOf(ownerRow(dana))).toBe("access denied");
    expect(await dana.getByRole("button", { name: `Open ${o.email}'s vault` }).count()).toBe(0);
    await screenshot(dana, "screenshots/emergency-contact-denied.png");
    const contactId = (await dApi.get("/api/vault/emergency")).body.as_contact[0].id;
    expect((await dApi.get(`/api/vault/emergency/access?contact_id=${contactId}`)).status).toBe(
      403,
    );
  });
});
