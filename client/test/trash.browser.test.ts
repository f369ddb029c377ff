import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveVaultKeys } from "../../core/crypto/crypto";
import { apiAs, openFor } from "./support/api";
import {
  entryNames,
  launch,
  newUser,
  openEntry,
  screenshot,
  signInThroughPage,
  waitForPending,
  type Browser,
  type Page,
} from "./support/browser";
import { signInWithEntries } from "./support/seed";
import { base, d1 } from "./support/journey";

// Deleting as a Bitwarden user expects it: no question, a toast with Undo, the entry in a Trash
// (with its count) from which it comes back or is deleted for good; and the server then holds
// what the page shows.
const PASSPHRASE = "trash journey passphrase 1";
let browser: Browser;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;
let api: Awaited<ReturnType<typeof apiAs>>;
/** Every browser confirm()/prompt() the page raised: a move to the trash raises none. */
const asked: string[] = [];

beforeAll(async () => {
  user = await newUser("trash");
  api = await apiAs(base(), user.token);
  browser = await launch();
  const context = await browser.newContext({
    baseURL: base(),
    viewport: { width: 1280, height: 900 },
  });
  page = await context.newPage();
  page.on("dialog", (d) => {
    asked.push(d.message());
    void d.dismiss();
  });
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await signInWithEntries(page, user, PASSPHRASE, [
    { name: "Bank", website: "bank.example", username: "bo", password: "Bank-pw-1" },
    { name: "GitHub", website: "github.com", username: "octo", password: "GitHub-pw-1" },
    { name: "Gmail", website: "mail.example", username: "gee", password: "Gmail-pw-1" },
  ]);
});

afterAll(async () => {
  await browser?.close();
});

const toast = () => page.locator("#toast");
const trashCount = () => page.locator("#trash-count").innerText();
const trashNames = () => page.locator("#trash-list .trash-name strong").allInnerTexts();
const serverTrash = async () =>
  ((await api.get("/api/passwords/trash")).body.data as { name: string }[]).map((e) => e.name);
const serverLive = async () => [...(await api.entries()).keys()].sort();

async function deleteEntry(name: string) {
  await openEntry(page, name);
  await page.getByRole("button", { name: `Delete ${name}`, exact: true }).click();
  await expect.poll(() => toast().innerText()).toContain(`Moved ${name} to Trash`);
}

async function openTrash() {
  const toggle = page.getByRole("button", { name: /^Trash/ });
  if ((await toggle.getAttribute("aria-pressed")) !== "true") await toggle.click();
  await page.locator("#trash-view").waitFor();
}

async function closeTrash() {
  const toggle = page.getByRole("button", { name: /^Trash/ });
  if ((await toggle.getAttribute("aria-pressed")) === "true") await toggle.click();
  await page.locator("#trash-view").waitFor({ state: "hidden" });
}

describe("the trash", () => {
  it("deletes without a question, says so with Undo, and Undo brings the entry back", async () => {
    await deleteEntry("GitHub");
    expect(asked).toEqual([]);
    expect(await toast().getByRole("button", { name: "Undo" }).isVisible()).toBe(true);
    await expect.poll(() => entryNames(page)).toEqual(["Bank", "Gmail"]);
    await screenshot(page, "screenshots/trash-undo-toast-1280.png");

    await toast().getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => toast().innerText()).toBe("Restored GitHub");
    await expect.poll(() => entryNames(page)).toEqual(["Bank", "GitHub", "Gmail"]);
    await waitForPending(page, 0);
    // The server holds it live, whole, and not in the trash.
    await expect.poll(serverLive).toEqual(["Bank", "GitHub", "Gmail"]);
    expect(await serverTrash()).toEqual([]);
    const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
    const row = (await api.entries()).get("GitHub");
    expect(await openFor(keys, user.sub, row)).toMatchObject({
      username: "octo",
      password: "GitHub-pw-1",
    });
    await expect.poll(trashCount).toBe("");
  });

  it("lists a deleted entry in the Trash with its count, and restores it from there", async () => {
    await deleteEntry("GitHub");
    await waitForPending(page, 0);
    await expect.poll(serverTrash).toEqual(["GitHub"]);
    await expect.poll(trashCount).toBe("1");
    expect(await page.getByRole("button", { name: "Trash, 1 entry" }).isVisible()).toBe(true);

    await openTrash();
    await expect.poll(trashNames).toEqual(["GitHub"]);
    expect(await page.locator("#entries").isVisible()).toBe(false);
    expect(await page.locator("#trash-hint").innerText()).toContain("30 days");
    await screenshot(page, "screenshots/trash-list-1280.png");

    await page.getByRole("button", { name: "Restore GitHub" }).click();
    await expect.poll(() => toast().innerText()).toBe("Restored GitHub");
    await expect.poll(trashNames).toEqual([]);
    expect(await page.locator("#trash-empty").isVisible()).toBe(true);
    await expect.poll(trashCount).toBe("");
    await closeTrash();
    // Back through the pull: the list shows it, and the server holds it live.
    await expect.poll(() => entryNames(page)).toEqual(["Bank", "GitHub", "Gmail"]);
    expect(await serverLive()).toEqual(["Bank", "GitHub", "Gmail"]);
    expect(await serverTrash()).toEqual([]);
    await openEntry(page, "GitHub");
    expect(await page.locator("#revealed-heading").innerText()).toBe("GitHub");
  });

  it("another device of the person sees the move to the trash and the restore after its pull", async () => {
    const other = await browser.newContext({
      baseURL: base(),
      viewport: { width: 1280, height: 900 },
    });
    try {
      const second = await other.newPage();
      await signInThroughPage(second, user.token, PASSPHRASE);
      await expect.poll(() => entryNames(second)).toEqual(["Bank", "GitHub", "Gmail"]);

      await deleteEntry("Bank");
      await waitForPending(page, 0);
      await second.getByRole("button", { name: "Sync now" }).click();
      await expect.poll(() => entryNames(second)).toEqual(["GitHub", "Gmail"]);
      await expect.poll(() => second.locator("#trash-count").innerText()).toBe("1");

      // Restored there, back here after this device's pull.
      await second.getByRole("button", { name: /^Trash/ }).click();
      await second.getByRole("button", { name: "Restore Bank" }).click();
      await expect.poll(() => entryNames(second)).toEqual(["Bank", "GitHub", "Gmail"]);
      await page.getByRole("button", { name: "Sync now" }).click();
      await expect.poll(() => entryNames(page)).toEqual(["Bank", "GitHub", "Gmail"]);
      await expect.poll(trashCount).toBe("");
      expect(await serverLive()).toEqual(["Bank", "GitHub", "Gmail"]);
    } finally {
      await other.close();
    }
  });

  it("deletes for good after a question, then empties the trash; the server keeps no ciphertext", async () => {
    await deleteEntry("Gmail");
    await deleteEntry("Bank");
    await waitForPending(page, 0);
    await expect.poll(async () => (await serverTrash()).sort()).toEqual(["Bank", "Gmail"]);
    await openTrash();
    await expect.poll(async () => (await trashNames()).sort()).toEqual(["Bank", "Gmail"]);
    await expect.poll(trashCount).toBe("2");

    // Cancel keeps it.
    await page.getByRole("button", { name: "Delete for good: Gmail" }).click();
    await page.locator("#confirm-no").click();
    expect((await serverTrash()).sort()).toEqual(["Bank", "Gmail"]);

    await page.getByRole("button", { name: "Delete for good: Gmail" }).click();
    expect(await page.locator(".confirm-dialog h2").innerText()).toBe("Delete Gmail for good?");
    await page.locator("#confirm-yes").click();
    await expect.poll(trashNames).toEqual(["Bank"]);
    await expect.poll(trashCount).toBe("1");
    expect(await serverTrash()).toEqual(["Bank"]);

    await page.getByRole("button", { name: "Empty trash" }).click();
    await page.locator("#confirm-yes").click();
    await expect.poll(() => page.locator("#trash-empty").isVisible()).toBe(true);
    await expect.poll(trashCount).toBe("");
    expect(await serverTrash()).toEqual([]);
    expect(await serverLive()).toEqual(["GitHub"]);
    // Purged rows are bare tombstones: no name, no ciphertext left.
    const owner = String((await api.entries()).get("GitHub").user_id).replace(/'/g, "''");
    const purged = d1<{ name: string; encrypted_data: string | null; purged_at: string | null }>(
      `SELECT name, encrypted_data, purged_at FROM passwords WHERE user_id = '${owner}' AND deleted_at IS NOT NULL`,
    );
    expect(purged).toHaveLength(2);
    for (const r of purged) {
      expect(r.name).toBe("");
      expect(r.encrypted_data).toBeNull();
      expect(r.purged_at).toBeTruthy();
    }
    // A search gives the entries their place back.
    await page.locator("#search").fill("Git");
    await page.locator("#trash-view").waitFor({ state: "hidden" });
    await expect.poll(() => entryNames(page)).toEqual(["GitHub"]);
    expect(asked).toEqual([]);
  });
});
