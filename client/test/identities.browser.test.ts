import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiAs } from "./support/api";
import { aliasProviderKey, aliasProviderState, revealEntry } from "./support/automation";
import {
  entryNames,
  launch,
  newUser,
  revealedField,
  screenshot,
  signInThroughPage,
  waitForPending,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { base, openSection, personContext } from "./support/journey";

// Disposable identities in real Chromium against wrangler dev and the local alias provider.
const PASSPHRASE = "identities passphrase";
let browser: Browser;
let context: BrowserContext;
let page: Page;
let api: Awaited<ReturnType<typeof apiAs>>;

const cards = (p: Page) => p.locator("section.identity");
const serverIdentities = async () =>
  (await api.get("/api/identities")).body.identities as {
    id: string;
    email_alias: string | null;
    address_country: string | null;
    first_name: string;
  }[];

beforeAll(async () => {
  browser = await launch();
  const user = await newUser("identities");
  ({ context, page } = await personContext(browser));
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base() });
  await signInThroughPage(page, user.token, PASSPHRASE);
  api = await apiAs(base(), user.token);
  await openSection(page, "Identities");
});

afterAll(async () => {
  await browser?.close();
});

describe("identities", () => {
  it("generates a persona for a country, shows its fields, copies one", async () => {
    await page.getByLabel("Country").selectOption("GB");
    await page.getByLabel("Label (optional)").fill("Newsletter persona");
    await page.getByRole("button", { name: "Generate identity" }).click();
    await expect.poll(() => cards(page).count()).toBe(1);
    const [made] = await serverIdentities();
    expect(made!.address_country).toBe("GB");
    expect(made!.email_alias).toBeNull();
    const card = cards(page).first();
    expect(await card.locator('dd[data-field="first_name"] span').innerText()).toBe(
      made!.first_name,
    );
    expect(await card.locator('dd[data-field="email_alias"]').count()).toBe(0);
    await card.getByRole("button", { name: /^Copy First name of / }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(made!.first_name);
    await screenshot(page, "screenshots/identities-generated.png");
  });

  it("with an alias from the alias provider; a missing or refused key gets a clear message and creates nothing", async () => {
    await page.getByLabel("Create an email alias").check();
    await page.getByRole("button", { name: "Generate identity" }).click();
    await expect
      .poll(() => page.locator("form.identity-form").getByRole("alert").innerText())
      .toBe("Enter the alias provider's API key to create an email alias.");
    await page.getByLabel("Alias provider API key").fill("key_not_known_to_the_provider");
    await page.getByRole("button", { name: "Generate identity" }).click();
    await expect
      .poll(() => page.locator("form.identity-form").getByRole("alert").innerText())
      .toContain("emailApiKey");
    expect(await serverIdentities()).toHaveLength(1);

    const key = await aliasProviderKey();
    await page.getByLabel("Alias provider API key").fill(key);
    await page.getByRole("button", { name: "Generate identity" }).click();
    await expect.poll(() => cards(page).count()).toBe(2);
    const alias = (await aliasProviderState(key)).aliases[0]!;
    expect(alias.enabled).toBe(true);
    const withAlias = cards(page).filter({ hasText: alias.email });
    expect(await withAlias.locator('dd[data-field="email_alias"] span').innerText()).toBe(
      alias.email,
    );
    await screenshot(page, "screenshots/identities-alias.png");
  });

  it("saves an identity as a vault entry and deletes one", async () => {
    const withAlias = cards(page).filter({ has: page.locator('dd[data-field="email_alias"]') });
    const aliasEmail = await withAlias.locator('dd[data-field="email_alias"] span').innerText();
    const name = await withAlias.locator("h3").innerText();
    await withAlias.getByRole("button", { name: `Save ${name} as a vault entry` }).click();
    await page.getByText(`Saved ${name} to the vault`).waitFor();
    await openSection(page, "Vault");
    await waitForPending(page, 0);
    const entryName = `${name} (identity)`;
    expect(await entryNames(page)).toContain(entryName);
    expect((await api.entries()).has(entryName)).toBe(true);
    await revealEntry(page, entryName);
    expect(await revealedField(page, "username")).toBe(aliasEmail);
    expect((await revealedField(page, "password")).length).toBe(20);

    await openSection(page, "Identities");
    await expect.poll(() => cards(page).count()).toBe(2);
    const first = cards(page).first();
    const firstName = await first.locator("h3").innerText();
    await first.getByRole("button", { name: `Delete ${firstName}` }).click();
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await serverIdentities()).toHaveLength(1);
    await context.close();
  });
});
