import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson } from "./support/account";
import { launch, openEntry, screenshot, type Browser } from "./support/browser";
import { openSection } from "./support/journey";

// Items of kinds the vault has no form for (a bank account, a Wi-Fi network …) arrive as the
// nearest kind with their details as named fields, and the preview counts them by kind.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "import-kinds");
});

afterAll(async () => {
  await browser?.close();
});

describe("import: every kind a file holds", () => {
  it("a LastPass file's typed notes: counted by kind in the preview, each arriving with its fields", async () => {
    const { page } = person;
    const file = readFileSync(
      new URL("../../test/fixtures/imports/lastpass-notes.csv", import.meta.url),
    );
    await openSection(page, "Import & export");
    await page
      .getByLabel(/Export file from another password manager/)
      .setInputFiles({ name: "lastpass_export.csv", mimeType: "text/csv", buffer: file });
    await page.getByLabel("Format").selectOption("auto");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-summary").innerText())
      .toBe("LastPass (CSV): 7 entries ready (2 kept as they are, 5 changed), 0 skipped.");
    expect(await page.locator("#import-kinds").innerText()).toBe(
      "By kind: 1 card, 3 secure notes, 2 identities, 1 login; kept as the nearest kind: 1 bank account (as a secure note), 1 address (as an identity), 1 passport (as an identity), 1 Wi-Fi network (as a login), 1 insurance (as a secure note).",
    );
    const rows = await page.locator("#import-preview tbody tr").allInnerTexts();
    expect(rows[1]).toMatch(
      /Household account[\s\S]*bank account, as a secure note; 8 fields \(2 hidden\); notes; folder Finance[\s\S]*Changed: a bank account in the source: kept as a secure note, its details as 8 named fields/,
    );
    await screenshot(page, "screenshots/import-kinds-preview.png");
    await page.getByRole("button", { name: "Import 7 entries" }).click();
    await expect
      .poll(() => page.locator("#import-done").innerText(), { timeout: 30_000 })
      .toBe("Imported 7 of 7 entries. 2 kept as they were, 5 changed, 0 not imported.");
    const held = (await person.api.get("/api/passwords?limit=100")).body.data as {
      name: string;
      encrypted_data: string;
    }[];
    expect(held.map((r) => r.name).sort()).toEqual(
      [
        "Gate",
        "Home Wi-Fi",
        "Home address",
        "Home insurance",
        "Household account",
        "Passport",
        "Travel Visa",
      ].sort(),
    );
    // The account number and PIN reach the server only inside the encryption.
    expect(JSON.stringify(held)).not.toMatch(/000123456789|4455|salty-breeze/);

    await openSection(page, "Vault");
    await openEntry(page, "Household account");
    const account = page.locator('#revealed-fields dd[data-label="Account Number"]');
    expect(await account.getAttribute("data-masked")).toBe("true");
    expect(await page.locator('#revealed-fields dd[data-label="Bank Name"]').innerText()).toBe(
      "North Shore Savings",
    );
    await openEntry(page, "Travel Visa");
    expect(await page.locator('#revealed-fields dd[data-field="card.expiry"]').innerText()).toBe(
      "06/2028",
    );
    await screenshot(page, "screenshots/import-kinds-card.png");
  });
});
