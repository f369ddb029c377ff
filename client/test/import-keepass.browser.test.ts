import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KdbxCredentials } from "kdbxweb";
import { buildKdbx, KEEPASS_PASSWORD } from "../../test/importers/keepass-files";
import { protectedBitwardenExport } from "../../test/importers/bitwarden-export";
import { signedInPerson } from "./support/account";
import { launch, openEntry, revealedField, screenshot, type Browser } from "./support/browser";
import { openSection } from "./support/journey";

// A KeePass database (KDBX 4, Argon2id: WebAssembly under the page's CSP) opened in the browser with
// its master password and key file, previewed row by row, imported, and read back in the vault;
// and a Bitwarden export protected with Argon2id, which the same WebAssembly opens.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "keepass");
});

afterAll(async () => {
  await browser?.close();
});

const serverRows = async () =>
  (await person.api.get("/api/passwords?limit=2000")).body.data as {
    name: string;
    encryption_version: number;
    encrypted_data: string;
  }[];
const chooseFile = (name: string, buffer: Buffer) =>
  person.page
    .getByLabel(/Export file from another password manager/)
    .setInputFiles({ name, mimeType: "application/octet-stream", buffer });

describe("import from KeePass", () => {
  it("a KDBX asks for its master password and key file, refuses wrong ones, previews each row, imports, and the entries hold every field", async () => {
    const { page } = person;
    const keyFile = await KdbxCredentials.createRandomKeyFile(2);
    const kdbx = await buildKdbx({ version: 4, kdf: "argon2id", keyFile });
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.method() !== "GET") sent.push(r.url());
    });
    await openSection(page, "Import & export");
    await chooseFile("Passwords.kdbx", Buffer.from(kdbx));
    // Chosen as a .kdbx: the master password and the key file are asked for at once.
    expect(await page.getByLabel("Master password").isVisible()).toBe(true);
    expect(await page.getByLabel("Key file (if the database uses one)").isVisible()).toBe(true);
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-error").innerText())
      .toMatch(
        /KeePass database is locked: enter its master password, choose its key file, or both/,
      );

    await page.getByLabel("Master password").fill("wrong horse");
    await page.getByLabel("Key file (if the database uses one)").setInputFiles({
      name: "Passwords.keyx",
      mimeType: "application/octet-stream",
      buffer: Buffer.from(keyFile),
    });
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-error").innerText())
      .toBe(
        "The password or key file does not open this KeePass database: check it and press Preview again",
      );
    expect(await page.locator("#import-start").isHidden()).toBe(true);
    await screenshot(page, "screenshots/import-kdbx-wrong-password.png");

    await page.getByLabel("Master password").fill(KEEPASS_PASSWORD);
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-summary").innerText(), { timeout: 30_000 })
      .toBe(
        "KeePass / KeePassXC (KDBX database or KeePass 2 XML): 3 entries ready (2 kept as they are, 1 changed), 2 skipped.",
      );
    expect(await page.locator("#import-error").innerText()).toBe("");
    const rows = await page.locator("#import-preview tbody tr").allInnerTexts();
    expect(rows[0]).toMatch(
      /Bank[\s\S]*bank\.example\.org[\s\S]*alice[\s\S]*1 more address; TOTP[\s\S]*Kept as it is/,
    );
    expect(rows[1]).toMatch(/Wi-Fi[\s\S]*secure note; notes; folder Personal[\s\S]*Kept as it is/);
    expect(rows[2]).toMatch(
      /Mail[\s\S]*mail\.example\.com[\s\S]*alice@example\.com[\s\S]*2 more addresses; 3 fields \(1 hidden\); TOTP; 2 earlier passwords; notes; folder Personal\/Email; tags work, mail/,
    );
    expect(rows[2]).toContain(
      'Changed: expiry date 2030-01-31 kept as the field "Expires"; attachment "backup-codes.txt" not imported',
    );
    expect(rows.join("\n")).toMatch(/Old forum[\s\S]*in KeePass's Recycle Bin/);
    expect(rows.join("\n")).toMatch(/Placeholder[\s\S]*nothing to store/);
    await screenshot(page, "screenshots/import-kdbx-preview.png");
    // Reading the file sent nothing: the database, its password and key file stayed in the page.
    expect(sent.filter((u) => u.includes("/api/passwords"))).toEqual([]);
    expect(await serverRows()).toEqual([]);

    await page.getByRole("button", { name: "Import 3 entries" }).click();
    await expect
      .poll(() => page.locator("#import-done").innerText(), { timeout: 30_000 })
      .toBe("Imported 3 of 3 entries. 2 kept as they were, 1 changed, 2 not imported.");
    const held = await serverRows();
    expect(held.map((r) => r.name).sort()).toEqual(["Bank", "Mail", "Wi-Fi"]);
    expect(held.every((r) => r.encryption_version === 3)).toBe(true);
    expect(JSON.stringify(held)).not.toMatch(/current-pw|RC-1234-5678|bank-pw|first-pw|second-pw/);

    await openSection(page, "Vault");
    await openEntry(page, "Mail");
    await expect.poll(() => revealedField(page, "password")).toBe("current-pw");
    expect(await page.locator('#revealed-fields dd[data-field="username"]').innerText()).toBe(
      "alice@example.com",
    );
    const recovery = page.locator('#revealed-fields dd[data-label="Recovery code"]');
    expect(await recovery.getAttribute("data-masked")).toBe("true");
    expect(await recovery.innerText()).not.toContain("RC-1234");
    await page.getByRole("button", { name: "Show recovery code", exact: true }).click();
    await expect.poll(() => recovery.innerText()).toBe("RC-1234-5678");
    expect(await page.locator('#revealed-fields dd[data-label="Account id"]').innerText()).toBe(
      "A-42",
    );
    expect(await page.locator('#revealed-fields dd[data-label="Expires"]').innerText()).toBe(
      "2030-01-31",
    );
    expect(await page.locator('#revealed-fields dd[data-field="urls.0"]').innerText()).toBe(
      "https://webmail.example.com",
    );
    expect(await page.locator('#revealed-fields dd[data-field="urls.1"]').innerText()).toBe(
      "https://imap.example.com",
    );
    // KeePass's entry history: the earlier passwords, newest first, shown only when opened.
    const history = page.locator('#revealed-fields dd[data-field="password_history"]');
    expect(await history.innerText()).toBe("Show 2 previous passwords");
    await history.getByText("Show 2 previous passwords").click();
    await expect
      .poll(() => history.locator("li .mono").allInnerTexts())
      .toEqual(["second-pw", "first-pw"]);
    await screenshot(page, "screenshots/import-kdbx-entry.png");
    await openEntry(page, "Bank");
    expect(await revealedField(page, "totp")).toBe(
      "otpauth://totp/Bank?secret=GEZDGNBVGY3TQOJQ&digits=8&period=60&algorithm=SHA-256",
    );
  });

  it("a Bitwarden export protected with Argon2id opens with its password (WebAssembly under the page's CSP)", async () => {
    const { page } = person;
    const plain = {
      encrypted: false,
      folders: [],
      items: [
        {
          type: 1,
          name: "Argon forge",
          favorite: false,
          notes: null,
          login: {
            username: "ari",
            password: "argon-forge-pw",
            totp: null,
            uris: [{ uri: "https://argon-forge.example.com", match: null }],
          },
        },
      ],
    };
    const file = await protectedBitwardenExport(JSON.stringify(plain), "export-secret", 3, {
      memory: 16,
      parallelism: 2,
    });
    await openSection(page, "Import & export");
    await chooseFile("bitwarden_encrypted_export.json", Buffer.from(file));
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-error").innerText())
      .toMatch(/protected by a password: enter it/);
    expect(await page.getByLabel("Key file (if the database uses one)").isVisible()).toBe(false);
    await page.getByLabel("Export password").fill("not-it");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-error").innerText(), { timeout: 30_000 })
      .toMatch(/The password does not open this Bitwarden export/);
    await page.getByLabel("Export password").fill("export-secret");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-summary").innerText(), { timeout: 30_000 })
      .toMatch("Bitwarden (JSON, password-protected JSON or CSV): 1 entry ready");
    await page.getByRole("button", { name: "Import 1 entry" }).click();
    await expect
      .poll(() => page.locator("#import-done").getAttribute("data-imported"), { timeout: 30_000 })
      .toBe("1");
    await openSection(page, "Vault");
    await openEntry(page, "Argon forge");
    await expect.poll(() => revealedField(page, "password")).toBe("argon-forge-pw");
  });
});
