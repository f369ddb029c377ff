import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson } from "./support/account";
import { entryNames, launch, openEntry, revealedField, screenshot, waitForPending, type Browser } from "./support/browser";
import { openSection } from "./support/journey";

// Import from another manager's export (preview with per-row problems, encrypted here, sent in
// batches of 50 with a progress bar), and export of the vault, encrypted and importable again.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;

const GOOD = 120;
const csv = [
  "name,url,username,password,notes",
  ...Array.from({ length: GOOD }, (_, i) => `Site ${i},https://site${i}.example/login,user${i},secret-pw-${i},note ${i}`),
  "Only a name,,,,",
  `${"N".repeat(600)},https://long.example,u,p,`,
].join("\n");

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "import");
});

afterAll(async () => {
  await browser?.close();
});

const serverRows = async () => (await person.api.get("/api/passwords?limit=2000")).body.data as { name: string; encryption_version: number; encrypted_data: string; username: string | null; password?: unknown }[];

describe("import and export", () => {
  it("a file that is not of the chosen format gets a clear message and imports nothing", async () => {
    const { page } = person;
    await openSection(page, "Import & export");
    await page.getByLabel(/Export file from another password manager/).setInputFiles({ name: "export.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByLabel("Format").selectOption("source_mgr_2");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => page.locator("#import-error").innerText()).toMatch(/cannot be read as that format/);
    expect(await page.locator("#import-start").isHidden()).toBe(true);
    expect(await serverRows()).toEqual([]);
  });

  it("previews every row, with the problem of each bad one", async () => {
    const { page } = person;
    await page.getByLabel("Format").selectOption("auto");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => page.locator("#import-summary").innerText()).toMatch(`${GOOD} entries ready, 2 with problems`);
    expect(await page.locator("#import-preview tbody tr[data-status=ok]").count()).toBe(GOOD);
    const bad = await page.locator("#import-preview tbody tr[data-status=error]").allInnerTexts();
    expect(bad.join("\n")).toMatch(/nothing to store/);
    expect(bad.join("\n")).toMatch(/name longer than 500 characters/);
    await screenshot(page, "screenshots/import-export-preview.png");
    expect(await serverRows()).toEqual([]);
  });

  it("imports in batches of 50 with progress; the server holds V3 envelopes only; the vault shows them", async () => {
    const { page } = person;
    const batches: number[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/api/passwords/import")) batches.push((JSON.parse(r.postData() ?? "{}") as { entries: unknown[] }).entries.length);
    });
    await page.getByRole("button", { name: `Import ${GOOD} entries` }).click();
    await expect.poll(() => page.locator("#import-done").getAttribute("data-imported"), { timeout: 30_000 }).toBe(String(GOOD));
    expect(batches).toEqual([50, 50, 20]);
    expect(await page.locator("#import-progress").evaluate((p) => (p as HTMLProgressElement).value)).toBe(100);
    const rows = await serverRows();
    expect(rows).toHaveLength(GOOD);
    expect(rows.every((r) => r.encryption_version === 3 && r.encrypted_data && r.username === null)).toBe(true);
    expect(JSON.stringify(rows)).not.toContain("secret-pw-");

    await openSection(page, "Vault");
    await waitForPending(page, 0);
    await expect.poll(async () => (await entryNames(page)).length).toBe(GOOD);
    await openEntry(page, "Site 7");
    await expect.poll(() => revealedField(page, "password")).toBe("secret-pw-7");
  });

  let exported = "";
  it("exports the vault encrypted with each entry's id; importing it again duplicates nothing", async () => {
    const { page } = person;
    await openSection(page, "Import & export");
    const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export the vault" }).click()]);
    exported = readFileSync((await file.path())!, "utf8");
    const doc = JSON.parse(exported) as { format: string; count: number; entries: unknown[] };
    expect(doc).toMatchObject({ format: "credential-vault-export", count: GOOD });
    expect(exported).not.toContain("secret-pw-");

    await page.getByLabel(/Export file from another password manager/).setInputFiles({ name: "vault.json", mimeType: "application/json", buffer: Buffer.from(exported) });
    await page.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => page.locator("#import-summary").innerText()).toMatch(`This vault's export: ${GOOD} entries ready`);
    // Each entry is bound to its id, and these ids are in the vault already: nothing is duplicated.
    await page.getByRole("button", { name: `Import ${GOOD} entries` }).click();
    await expect.poll(() => page.locator("#import-done").getAttribute("data-imported"), { timeout: 30_000 }).toBe("0");
    const said = await page.locator("#import-result").innerText();
    for (const [from, to, n] of [[1, 50, 50], [51, 100, 50], [101, 120, 20]]) expect(said).toContain(`Entries ${from} to ${to}: ${n} entries were skipped: already in the vault (same id)`);
    expect(await serverRows()).toHaveLength(GOOD);
    expect(JSON.parse(exported).entries.every((e: { id?: string }) => typeof e.id === "string")).toBe(true);
    await screenshot(page, "screenshots/import-export-done.png");
  });
});
