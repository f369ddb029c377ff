import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namedEntry, openEntryTool, serverEntry, signedInPerson } from "./support/account";
import { launch, screenshot, type Browser } from "./support/browser";

// Attachments of an entry: encrypted in the browser (content, name, type), uploaded with a
// progress bar, listed by their decrypted names with the quota, downloaded and decrypted, deleted.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;
let entryId: string;
const CONTENT = Buffer.from(`Passport number X1234567 — ${"confidential ".repeat(20000)}`);

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "attach", undefined, [namedEntry("Passport")]);
  entryId = (await serverEntry(person.api, "Passport")).id;
});

afterAll(async () => {
  await browser?.close();
});

const listed = async () =>
  (await person.api.get(`/api/vault/attachments?parent_id=${entryId}&parent_type=password`))
    .body as { attachments: { id: string; size: number }[]; usage: { used: number } };

describe("attachments", () => {
  it("refuses no file and an empty file with a message, uploading nothing", async () => {
    const tool = await openEntryTool(person.page, "Passport", "attachments");
    await tool.getByRole("button", { name: "Upload" }).click();
    await expect
      .poll(() => tool.locator("#attachment-error").innerText())
      .toBe("Choose a file first");
    await tool
      .getByLabel("Attach a file (up to 25 MB)")
      .setInputFiles({ name: "empty.txt", mimeType: "text/plain", buffer: Buffer.alloc(0) });
    await tool.getByRole("button", { name: "Upload" }).click();
    await expect
      .poll(() => tool.locator("#attachment-error").innerText())
      .toBe("That file is empty");
    expect((await listed()).attachments).toEqual([]);
  });

  it("uploads with progress; the server holds ciphertext only; the list shows the decrypted name and the quota", async () => {
    const { page } = person;
    const tool = await openEntryTool(page, "Passport", "attachments");
    await expect
      .poll(() => tool.locator("#attachments-usage").innerText())
      .toBe("0 B of 100.0 MB used");
    await page.evaluate(() => {
      const bar = document.getElementById("attachment-progress") as HTMLProgressElement;
      (window as unknown as { seen: number[] }).seen = [];
      const orig = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, "value")!;
      Object.defineProperty(bar, "value", {
        get: () => orig.get!.call(bar),
        set: (v: number) => (
          (window as unknown as { seen: number[] }).seen.push(v), orig.set!.call(bar, v)
        ),
      });
    });
    await tool
      .getByLabel("Attach a file (up to 25 MB)")
      .setInputFiles({ name: "passport scan.txt", mimeType: "text/plain", buffer: CONTENT });
    await tool.getByRole("button", { name: "Upload" }).click();
    await tool.locator("#attachments li", { hasText: "passport scan.txt" }).waitFor();
    // The bar was shown and followed the upload to its end.
    const seen = await page.evaluate(() => (window as unknown as { seen: number[] }).seen);
    expect(seen[0]).toBe(0);
    expect(seen).toContain(100);
    await screenshot(page, "screenshots/attachments-list.png");

    const { attachments, usage } = await listed();
    expect(attachments).toHaveLength(1);
    expect(attachments[0]!.size).toBe(CONTENT.length + 28);
    expect(usage.used).toBe(CONTENT.length + 28);
    await expect
      .poll(() => tool.locator("#attachments-usage").getAttribute("data-used"))
      .toBe(String(CONTENT.length + 28));
    const full = (await person.api.get(`/api/vault/attachments/${attachments[0]!.id}`)).body
      .attachment;
    const stored = Buffer.from(full.encrypted_content, "base64");
    expect(stored.includes(Buffer.from("Passport number"))).toBe(false);
    expect(JSON.stringify(full)).not.toContain("passport scan");
    expect(JSON.stringify(full)).not.toContain("text/plain");
  });

  it("downloads and decrypts to the same bytes and name", async () => {
    const { page } = person;
    const tool = await openEntryTool(page, "Passport", "attachments");
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      tool.getByRole("button", { name: "Download passport scan.txt" }).click(),
    ]);
    expect(file.suggestedFilename()).toBe("passport scan.txt");
    expect(readFileSync((await file.path())!).equals(CONTENT)).toBe(true);
  });

  it("deletes; the quota is given back", async () => {
    const tool = await openEntryTool(person.page, "Passport", "attachments");
    await tool.getByRole("button", { name: "Delete passport scan.txt" }).click();
    await tool.locator("#attachments li", { hasText: "No attachments." }).waitFor();
    expect(await listed()).toMatchObject({ attachments: [], usage: { used: 0 } });
  });
});
