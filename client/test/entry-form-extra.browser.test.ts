import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEntry as openSealed, placeOf } from "../../core/crypto/envelope";
import { deriveVaultKeys } from "../../core/crypto/crypto";
import { pageHostHashes } from "../../core/hosts/host-hashes";
import { signedInPerson } from "./support/account";
import {
  launch,
  openEntry,
  openNewEntry,
  screenshot,
  waitForPending,
  type Browser,
} from "./support/browser";
import { openSection } from "./support/journey";

// The entry form edits an entry's other addresses (each with its match rule) and custom fields;
// they reach the server sealed, with the extra address's blind host hash that match finds.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;
const PASSPHRASE = "form extra passphrase 16";

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "form-extra", PASSPHRASE);
});

afterAll(async () => {
  await browser?.close();
});

describe("the entry form's addresses and fields", () => {
  it("adds a second address and a hidden field, which survive a reload, are masked, sealed, and matched", async () => {
    const { page, api, user } = person;
    await openNewEntry(page);
    await page.getByLabel("Name", { exact: true }).fill("Forge");
    await page.getByLabel("Website", { exact: true }).fill("forge.example.com");
    await page.getByLabel("Username", { exact: true }).fill("lou");
    await page.getByLabel("Password", { exact: true }).fill("forge-pw-1");
    await page.getByRole("button", { name: "Add address" }).click();
    await page.getByLabel("Address 1", { exact: true }).fill("https://git.example.org/login");
    await page.getByLabel("Match rule of address 1").selectOption("host");
    await page.getByRole("button", { name: "Add field" }).click();
    await page.getByLabel("Field 1 name").fill("Recovery code");
    await page.getByLabel("Field 1 type").selectOption("hidden");
    expect(await page.getByLabel("Field 1 value").getAttribute("type")).toBe("password");
    await page.getByLabel("Field 1 value").fill("RC-77-secret");
    await screenshot(page, "entry-form-extra.png");
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator("#entry-dialog[open]").waitFor({ state: "hidden" });
    await waitForPending(page, 0);

    await page.reload();
    await openSection(page, "Vault");
    await openEntry(page, "Forge");
    expect(await page.locator('#revealed-fields dd[data-field="urls.0"]').innerText()).toBe(
      "https://git.example.org/login",
    );
    const hidden = page.locator('#revealed-fields dd[data-label="Recovery code"]');
    expect(await hidden.getAttribute("data-masked")).toBe("true");
    expect(await hidden.innerText()).not.toContain("RC-77-secret");

    // On the server: sealed (nothing of it in the clear), and found by the second address's hashed host.
    const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
    const row = (await api.entries()).get("Forge") as {
      id: string;
      website: string | null;
      url: string | null;
      wrapped_item_key: string;
      encrypted_data: string;
    };
    expect(JSON.stringify(row)).not.toContain("git.example.org");
    const { secrets } = await openSealed(keys, placeOf(user.sub, row), row);
    expect(secrets.urls).toEqual([{ url: "https://git.example.org/login", match: "host" }]);
    expect(secrets.fields).toEqual([
      { name: "Recovery code", value: "RC-77-secret", type: "hidden" },
    ]);
    const page2 = "https://git.example.org/login";
    const found = await api.get(
      `/api/passwords/match?url=${encodeURIComponent(page2)}&host_hashes=${(await pageHostHashes(keys, page2)).join(",")}`,
    );
    expect(found.body.matches.map((m: { id: string }) => m.id)).toEqual([row.id]);

    // Removing the address in an edit clears it, on the server's index too.
    await page.getByRole("button", { name: "Edit Forge", exact: true }).click();
    await page.locator("#entry-dialog[open]").waitFor();
    expect(await page.getByLabel("Address 1", { exact: true }).inputValue()).toBe(
      "https://git.example.org/login",
    );
    await page.getByRole("button", { name: /^Remove address/ }).click();
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator("#entry-dialog[open]").waitFor({ state: "hidden" });
    await waitForPending(page, 0);
    const after = await api.get(
      `/api/passwords/match?url=${encodeURIComponent(page2)}&host_hashes=${(await pageHostHashes(keys, page2)).join(",")}`,
    );
    expect(after.body.matches).toEqual([]);
  });
});
