import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  entryNames,
  fillEntry,
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type Page,
} from "./support/browser";
import { openSection, personContext, useContactKey } from "./support/journey";

// Live sync's topic notices in the web app: a share's other side sees it change without a reload.
// Olivia shares an entry with Rick; when Rick accepts, Olivia's Sharing page shows it active; when
// Olivia revokes it, Rick's vault list drops the shared entry, both without a reload or a sync press.
const PASS_O = "olivia live topics passphrase";
const PASS_R = "rick live topics passphrase";
let browser: Browser;
let olivia: Page;
let rick: Page;
let r: Awaited<ReturnType<typeof newUser>>;

const notReloaded = (page: Page) =>
  page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true);
const markLoaded = (page: Page) =>
  page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
const ownedStatus = () =>
  olivia.locator("#owned-rows tr", { hasText: r.email }).locator("td").nth(2).innerText();

beforeAll(async () => {
  const [o] = await Promise.all([
    newUser("olivia-live"),
    (async () => (r = await newUser("rick-live")))(),
  ]);
  browser = await launch();
  olivia = (await personContext(browser)).page;
  rick = (await personContext(browser)).page;
  await signInThroughPage(olivia, o.token, PASS_O);
  await fillEntry(olivia, {
    name: "Team wiki",
    website: "wiki.example",
    username: "team@wiki.example",
    password: "pw-wiki-live-7",
  });
  await signInThroughPage(rick, r.token, PASS_R);
  await fillEntry(rick, { name: "Rick own", username: "rick", password: "rick-own-live" });
  // Rick's sharing key is made on his first visit to Sharing; then Olivia can share with him.
  await openSection(rick, "Sharing");
  await rick
    .locator("#sharing-status")
    .getByText(/^Sharing is set up/)
    .waitFor();
  await openSection(olivia, "Sharing");
  await olivia.locator("#share-submit:not([disabled])").waitFor();
  await olivia.getByLabel("Entry", { exact: true }).selectOption({ label: "Team wiki" });
  await olivia.getByLabel("Recipient's email").fill(r.email);
  await olivia.getByRole("button", { name: "Share", exact: true }).click();
  await useContactKey(olivia, r.email);
  await olivia.locator("#owned-rows tr", { hasText: r.email }).waitFor();
  for (const p of [olivia, rick]) await markLoaded(p);
});

afterAll(async () => {
  await browser?.close();
});

describe("live topic notices in the web app", () => {
  it("a share appears on the recipient's open Sharing page, and the owner's page shows it accepted", async () => {
    // Rick's Sharing page was open before the share was made: the notice brings it in.
    await rick.getByRole("button", { name: "Accept Team wiki" }).waitFor({ timeout: 5_000 });
    expect(await ownedStatus()).toBe("pending");
    await rick.getByRole("button", { name: "Accept Team wiki" }).click();
    await rick.getByRole("button", { name: "Open Team wiki" }).waitFor();
    const acceptedAt = Date.now();
    await expect.poll(ownedStatus, { timeout: 5_000 }).toBe("active");
    console.log(
      `live topics: accepted to the owner's page showing it: ${Date.now() - acceptedAt} ms`,
    );
    expect(await notReloaded(olivia)).toBe(true);
    expect(await notReloaded(rick)).toBe(true);
  });

  it("a revoked share leaves the recipient's open vault list without a reload", async () => {
    await openSection(rick, "Vault");
    await expect.poll(() => entryNames(rick)).toEqual(["Rick own", "Team wiki"]);
    await markLoaded(rick);
    const revoked = olivia
      .waitForResponse(
        (res) =>
          res.request().method() === "PATCH" &&
          new URL(res.url()).pathname.startsWith("/api/sharing/") &&
          res.status() === 200,
      )
      .then(() => Date.now());
    await olivia.getByRole("button", { name: `Revoke Team wiki for ${r.email}` }).click();
    const revokedAt = await revoked;
    await expect.poll(() => entryNames(rick), { timeout: 5_000 }).toEqual(["Rick own"]);
    const ms = Date.now() - revokedAt;
    console.log(
      `live topics: revoke response to the recipient's list dropping the entry: ${ms} ms`,
    );
    expect(ms).toBeLessThan(2000);
    expect(await notReloaded(rick)).toBe(true);
    await screenshot(rick, "live-topics-revoked.png");
  });
});
