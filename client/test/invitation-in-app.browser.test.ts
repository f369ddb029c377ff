import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiAs } from "./support/api";
import {
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type Page,
} from "./support/browser";
import { base, inviteToken, openSection, personContext, useContactKey } from "./support/journey";

// An invitation a person finds without the mail: Olga names Kim by email; Kim signs in, opens
// Emergency access, finds the invitation listed there and accepts it with one button. The mail
// itself is readable on the development mail page, its link working.
const PASS_O = "olga passphrase 15";
const PASS_K = "kim passphrase 15";
let browser: Browser;
let olga: Page;
let kim: Page;
let o: Awaited<ReturnType<typeof newUser>>;
let k: Awaited<ReturnType<typeof newUser>>;
let oApi: Awaited<ReturnType<typeof apiAs>>;
let kApi: Awaited<ReturnType<typeof apiAs>>;

type Listed = {
  as_owner: { contact_email: string; status: string }[];
  as_contact: { id: string; owner_email?: string; status: string }[];
};

beforeAll(async () => {
  [o, k] = await Promise.all([newUser("olga"), newUser("kim")]);
  [oApi, kApi] = await Promise.all([apiAs(base(), o.token), apiAs(base(), k.token)]);
  browser = await launch();
  [olga, kim] = await Promise.all([personContext(browser), personContext(browser)]).then((all) =>
    all.map((p) => p.page),
  );
});

afterAll(async () => {
  await browser?.close();
});

const invitationRow = (p: Page) => p.locator("#owner-rows tr", { hasText: o.email });

describe("an emergency invitation found in the app", () => {
  it("the owner names a contact by email", async () => {
    await signInThroughPage(kim, k.token, PASS_K);
    await openSection(kim, "Emergency access");
    await kim.locator("#owners-empty:not([hidden])").waitFor();

    await signInThroughPage(olga, o.token, PASS_O);
    await openSection(olga, "Emergency access");
    await olga.getByLabel("Contact's email").fill(k.email);
    await olga.getByLabel("Waiting period (hours, 1 to 720)").fill("24");
    await olga.getByLabel("Your master passphrase").fill(PASS_O);
    await olga.getByRole("button", { name: "Invite", exact: true }).click();
    await useContactKey(olga, k.email);
    await olga.locator("#contact-rows tr", { hasText: k.email }).waitFor();
    expect(((await oApi.get("/api/vault/emergency")).body as Listed).as_owner).toMatchObject([
      { contact_email: k.email, status: "pending_invite" },
    ]);
  });

  it("the invitation mail is on the development mail page, its link working", async () => {
    const token = inviteToken(k.email);
    await kim.goto("/dev/mail");
    const mail = kim
      .locator("article", { hasText: k.email.toLowerCase() })
      .filter({ hasText: "emergency.invite" });
    await expect.poll(() => mail.count()).toBe(1);
    const link = mail.getByRole("link", { name: `/emergency/${token}` });
    const href = (await link.getAttribute("href")) ?? "";
    expect(await link.innerText()).toBe(href);
    expect(new URL(href, base()).pathname).toBe(`/emergency/${token}`);
    await screenshot(kim, "screenshots/dev-mail-invitation.png");
    // The link opens the app's invitation page (the accept itself is the mailed-link journey's).
    const res = await kim.request.get(new URL(href, base()).toString());
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("text/html");
  });

  it("the contact sees the invitation in Emergency access and accepts it there", async () => {
    await kim.goto("/");
    await openSection(kim, "Emergency access");
    const row = invitationRow(kim);
    await expect.poll(() => row.locator("td").nth(1).innerText()).toBe("invited");
    await expect.poll(() => kim.locator("#owners-empty").isHidden()).toBe(true);
    await screenshot(kim, "screenshots/invitation-listed.png");
    await kim.getByRole("button", { name: `Accept ${o.email}'s invitation` }).click();
    await expect
      .poll(() => kim.locator("#toast").innerText())
      .toBe(`You are now an emergency contact of ${o.email}`);
    await expect.poll(() => row.locator("td").nth(1).innerText()).toBe("active");
    await expect(
      kim.getByRole("button", { name: `Accept ${o.email}'s invitation` }).count(),
    ).resolves.toBe(0);
    await expect(
      row.getByRole("button", { name: `Request access to ${o.email}'s vault` }).isVisible(),
    ).resolves.toBe(true);

    expect(((await kApi.get("/api/vault/emergency")).body as Listed).as_contact).toMatchObject([
      { owner_email: o.email, status: "active" },
    ]);
    expect(((await oApi.get("/api/vault/emergency")).body as Listed).as_owner).toMatchObject([
      { contact_email: k.email, status: "active" },
    ]);
  });
});
