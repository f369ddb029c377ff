import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson, syncedEntry } from "./support/account";
import {
  dashboardReady,
  entryNames,
  launch,
  screenshot,
  waitForPending,
  type Browser,
} from "./support/browser";
import { openSection } from "./support/journey";

// Account matters live in the settings pages, out of the vault's way: the account page (who is
// signed in, the master passphrase change) leads to security, devices and import-export, whose
// addresses stay as they were. The change of passphrase still works from its new place.
const OLD = "settings passphrase 1";
const NEW = "settings passphrase 2, longer";
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "settings", OLD);
});

afterAll(async () => {
  await browser?.close();
});

/** A file of a zip (local headers, deflated or stored), as text. */
function zipEntry(zip: Buffer, name: string): string {
  for (let at = 0; zip.readUInt32LE(at) === 0x04034b50; ) {
    const method = zip.readUInt16LE(at + 8);
    const size = zip.readUInt32LE(at + 18);
    const nameLength = zip.readUInt16LE(at + 26);
    const start = at + 30 + nameLength + zip.readUInt16LE(at + 28);
    const data = zip.subarray(start, start + size);
    if (zip.toString("utf8", at + 30, at + 30 + nameLength) === name)
      return (method === 8 ? inflateRawSync(data) : data).toString("utf8");
    at = start + size;
  }
  throw new Error(`${name} is not in the zip`);
}

const nav = () => person.page.getByRole("navigation", { name: "Sections" });

describe("settings", () => {
  it("groups the account pages under Settings in the navigation; the vault has no account form", async () => {
    const { page } = person;
    expect(await page.getByRole("heading", { name: "Change master passphrase" }).count()).toBe(0);
    expect(await page.getByLabel("Current master passphrase").count()).toBe(0);
    const group = nav().getByRole("list", { name: "Settings" });
    expect(await group.getByRole("link").allInnerTexts()).toEqual([
      "Account",
      "Security",
      "Devices",
      "Machine tokens",
      "Import & export",
      "Contacts' keys",
    ]);
    await openSection(page, "Account");
    expect(new URL(page.url()).pathname).toBe("/settings");
    expect(await page.locator("#settings-email").innerText()).toBe(person.user.email);
  });

  it("leads from the account page to the other settings pages, at their old addresses", async () => {
    const { page } = person;
    for (const [title, path] of [
      ["Security", "/security"],
      ["Devices", "/devices"],
      ["Machine tokens", "/tokens"],
      ["Import & export", "/import-export"],
    ] as const) {
      await openSection(page, "Account");
      await page.getByRole("main").getByRole("link", { name: title, exact: true }).click();
      await page.waitForURL((u) => u.pathname === path);
      await page.getByRole("heading", { level: 1, name: title }).waitFor();
      expect(
        await nav().getByRole("link", { name: title, exact: true }).getAttribute("aria-current"),
      ).toBe("page");
    }
    // Loaded directly (a mail's link, a bookmark), each still opens.
    await page.goto("/devices");
    await dashboardReady(page);
    await page.getByRole("heading", { level: 1, name: "Devices" }).waitFor();
  });

  it("offers the browser extension: a download of the one built with this app, and the steps to load it", async () => {
    const { page } = person;
    await openSection(page, "Account");
    const card = page.getByRole("region", { name: "Browser extension" });
    const link = card.getByRole("link", { name: "Download the extension (.zip)" });
    expect(await link.getAttribute("href")).toBe("/extension.zip");
    expect(await card.locator("#extension-steps li").allInnerTexts()).toEqual([
      "Unzip the download into a folder you keep (the browser loads the extension from there).",
      "Open chrome://extensions (Edge: edge://extensions) and turn on Developer mode.",
      "Click Load unpacked and choose the unzipped folder.",
      `Open the extension from the toolbar. If its app address is not ${new URL(page.url()).origin}, set it in its Settings; then unlock it with your master passphrase.`,
    ]);
    await screenshot(page, "screenshots/settings-extension-1280.png");
    // The download is the extension: a zip whose manifest.json is the extension's.
    const download = page.waitForEvent("download");
    await link.click();
    const file = await (await download).createReadStream();
    const chunks: Buffer[] = [];
    for await (const c of file) chunks.push(c as Buffer);
    const zip = Buffer.concat(chunks);
    expect(zip.readUInt32LE(0)).toBe(0x04034b50);
    const manifest = JSON.parse(zipEntry(zip, "manifest.json"));
    expect(manifest.name).toBe("Credential Vault");
    expect(manifest.manifest_version).toBe(3);
    expect(zipEntry(zip, "background.js").length).toBeGreaterThan(1000);
  });

  it("changes the master passphrase from the account page: the vault opens with the new one only", async () => {
    const { page, api } = person;
    await page.goto("/vault");
    await dashboardReady(page);
    const before = await syncedEntry(page, api, "Settings entry");
    const wrappedBefore = (before as unknown as { wrapped_item_key: string }).wrapped_item_key;
    const accountKey = async () => {
      const { status, body } = await api.get("/api/account-key");
      expect(status).toBe(200);
      return JSON.stringify(body.account_key);
    };
    const accountKeyBefore = await accountKey();
    expect(accountKeyBefore).not.toBe("null");
    await openSection(page, "Account");
    await page.getByLabel("Current master passphrase").fill(OLD);
    await page.getByLabel("New master passphrase").fill(NEW);
    await page.getByLabel("Repeat the new passphrase").fill(NEW);
    const loaded = page.waitForEvent("load");
    await page.getByRole("button", { name: "Change passphrase" }).click();
    await loaded;
    // Done, the vault loads afresh (the old keys gone from memory). The passphrase wraps the
    // account key, so that one wrap is written again and no entry is touched.
    await page.waitForURL((u) => u.pathname === "/vault");
    await dashboardReady(page);
    await waitForPending(page, 0);
    await expect.poll(() => entryNames(page)).toEqual(["Settings entry"]);
    expect((await api.entries()).get("Settings entry").wrapped_item_key).toBe(wrappedBefore);
    expect(await accountKey()).not.toBe(accountKeyBefore);

    await page.getByRole("button", { name: "Lock" }).click();
    await page.locator("body[data-ready=locked]").waitFor();
    await page.getByLabel("Master passphrase").fill(OLD);
    await page.getByRole("button", { name: "Unlock" }).click();
    await expect
      .poll(() => page.locator("#unlock-error").innerText())
      .toBe("This passphrase does not open the vault");
    await page.getByLabel("Master passphrase").fill(NEW);
    await page.getByRole("button", { name: "Unlock" }).click();
    await dashboardReady(page);
    await expect.poll(() => entryNames(page)).toEqual(["Settings entry"]);
  });
});
