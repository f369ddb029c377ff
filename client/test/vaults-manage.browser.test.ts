import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namedEntry, signedInPerson } from "./support/account";
import {
  entryNames,
  openEntry,
  revealedField,
  screenshot,
  type Browser,
  type Page,
} from "./support/browser";
import { launch, useContactKey } from "./support/journey";
import { axeViolations, openPath } from "./support/pages";

// A shared vault's everyday actions, each in the people's own browsers: Ann (owner, desktop)
// changes a member's role, is refused demoting herself as the last owner, hands the vault to Ben;
// moves two of her own entries in, one back out, and one back out with the connection cut between
// the two writes; Cat (a 390 px phone) leaves and Ann's app gives the vault a new key; Ben, the
// owner now, deletes the vault through a dialog that names it and counts its entries.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
let browser: Browser;
let ann: Person;
let ben: Person;
let cat: Person;
let vaultId = "";
const ROUTER = namedEntry("Router");
const PRINTER = namedEntry("Printer");

beforeAll(async () => {
  browser = await launch();
  ann = await signedInPerson(browser, "ann", undefined, [ROUTER, PRINTER]);
  ben = await signedInPerson(browser, "ben");
  cat = await signedInPerson(browser, "cat");
  await cat.page.setViewportSize({ width: 390, height: 844 });
});

afterAll(async () => {
  await browser?.close();
});

const memberRow = (p: Page, email: string) => p.locator(`#member-rows tr[data-member="${email}"]`);
const roleOf = async (who: Person) =>
  (await ann.api.get(`/api/vaults/${vaultId}/members`)).body.members.find(
    (m: { email: string }) => m.email === who.user.email,
  )?.role;
type Row = { id: string; name: string; _deleted: boolean; encrypted_data?: string };
const vaultRows = async (p: Person): Promise<Row[]> =>
  (await p.api.get(`/api/vaults/${vaultId}/sync`)).body.changes.filter((c: Row) => !c._deleted);

async function accessible(p: Page, name: string) {
  expect(await axeViolations(p)).toEqual([]);
  await screenshot(p, `screenshots/vaults-manage-${name}.png`);
}

async function openRoom(p: Page) {
  await openPath(p, `/vaults/${vaultId}`);
  await p.getByRole("heading", { level: 1, name: "Team" }).waitFor();
}

describe("shared vaults: roles, ownership, moves, leaving and deleting", () => {
  it("Ann makes a vault, invites Ben (editor) and Cat (viewer), and gives both the key", async () => {
    await openPath(ann.page, "/vaults");
    await ann.page.getByLabel("Vault name").fill("Team");
    await ann.page.getByRole("button", { name: "Create vault" }).click();
    await ann.page.getByRole("heading", { level: 1, name: "Team" }).waitFor();
    vaultId = (await ann.api.get("/api/vaults")).body.vaults[0].id;
    for (const [who, role] of [
      [ben, "editor"],
      [cat, "viewer"],
    ] as const) {
      const inv = await ann.api.post(`/api/vaults/${vaultId}/invitations`, {
        email: who.user.email,
        role,
      });
      expect(
        (await who.api.post(`/api/vaults/invitations/${inv.body.invitation.id}/accept`)).status,
      ).toBe(200);
    }
    await openRoom(ann.page);
    for (const who of [ben, cat]) {
      await memberRow(ann.page, who.user.email)
        .getByRole("button", { name: "Compare key and give access" })
        .click();
      await useContactKey(ann.page, who.user.email, true);
      await expect.poll(() => memberRow(ann.page, who.user.email).innerText()).toContain("In");
    }
  });

  it("Ann makes Cat an editor; as the last owner she may not make herself a manager", async () => {
    const catRow = memberRow(ann.page, cat.user.email);
    await catRow.getByLabel(`Role of ${cat.user.email}`).selectOption("editor");
    await catRow.getByRole("button", { name: "Change role" }).click();
    await expect.poll(() => roleOf(cat)).toBe("editor");
    await expect.poll(() => catRow.innerText()).toContain("Editor (entries)");

    const own = memberRow(ann.page, ann.user.email);
    await own.getByLabel(`Role of ${ann.user.email}`).selectOption("manager");
    await own.getByRole("button", { name: "Change role" }).click();
    await expect
      .poll(() => ann.page.locator("#member-said").innerText())
      .toContain("A vault must keep an owner");
    expect(await roleOf(ann)).toBe("owner");
    // The row is drawn again from what the server holds.
    await expect.poll(() => own.getByLabel(`Role of ${ann.user.email}`).inputValue()).toBe("owner");

    // Ben, an editor, manages nobody: no role controls in his app.
    await openRoom(ben.page);
    await expect.poll(() => ben.page.locator("#member-rows tr").count()).toBe(3);
    expect(await ben.page.locator("#member-rows select").count()).toBe(0);
    expect(await ben.page.locator("#vault-delete").count()).toBe(0);
  });

  it("Ann hands the vault to Ben: he is the owner, she a manager", async () => {
    const benRow = memberRow(ann.page, ben.user.email);
    await benRow.getByRole("button", { name: "Make owner" }).click();
    await benRow
      .getByRole("button", { name: `Make ${ben.user.email} the owner; you become a manager` })
      .click();
    await expect.poll(() => roleOf(ben)).toBe("owner");
    await expect.poll(() => roleOf(ann)).toBe("manager");
    await expect
      .poll(() => ann.page.locator("#vault-room-role").innerText())
      .toContain("Manager (members and entries)");
    // A manager now: no owner to make, no vault to delete.
    await expect.poll(() => ann.page.locator("button.transfer").count()).toBe(0);
    expect(await ann.page.locator("#vault-delete").count()).toBe(0);
  });

  it("Ann moves Router and Printer in: sealed for the vault, gone from her own; Cat reads one on her phone", async () => {
    for (const name of ["Router", "Printer"]) {
      await ann.page.locator("#move-in-entry").selectOption({ label: name });
      await ann.page.getByRole("button", { name: "Move into this vault" }).click();
      await expect.poll(() => ann.page.locator("#vault-entries").innerText()).toContain(name);
    }
    await expect.poll(async () => [...(await ann.api.entries()).keys()]).toEqual([]);
    const rows = await vaultRows(ann);
    expect(rows.map((r) => r.name).sort()).toEqual(["Printer", "Router"]);
    expect(JSON.stringify(rows)).not.toContain(ROUTER.password);

    await openRoom(cat.page);
    await cat.page.locator('#vault-entries button:text-is("Router")').click();
    await cat.page.getByRole("button", { name: "Show password" }).click();
    await expect
      .poll(() => cat.page.locator("#vault-entry-password").innerText())
      .toBe(ROUTER.password);
    await accessible(cat.page, "phone-moved-in");
  });

  it("Ann moves Router back to her personal vault: it opens there and the vault no longer holds it", async () => {
    await ann.page.locator('#vault-entries button:text-is("Router")').click();
    await ann.page.getByRole("button", { name: "Move to my personal vault" }).click();
    await expect.poll(() => ann.page.locator("#vault-entries").innerText()).not.toContain("Router");
    expect((await vaultRows(ann)).map((r) => r.name)).toEqual(["Printer"]);
    expect((await ann.api.entries()).has("Router")).toBe(true);
    await openPath(ann.page, "/vault");
    await expect.poll(() => entryNames(ann.page)).toContain("Router");
    // Sealed for her own vault on her device: it opens in its new place.
    await openEntry(ann.page, "Router");
    expect(await revealedField(ann.page, "password")).toBe(ROUTER.password);
  });

  it("a cut between the two writes of a move leaves the entry in both places, and the vault's copy can be deleted", async () => {
    await openRoom(ann.page);
    // The destination write goes through; the source's delete never reaches the server.
    await ann.page.route(`**/api/vaults/${vaultId}/entries/*`, (r) =>
      r.request().method() === "DELETE" ? r.abort("connectionreset") : r.fallback(),
    );
    await ann.page.locator('#vault-entries button:text-is("Printer")').click();
    await ann.page.getByRole("button", { name: "Move to my personal vault" }).click();
    const said = ann.page.locator("#vault-entry-said");
    await expect.poll(() => said.innerText()).toContain("Printer is in your personal vault now");
    expect(await said.innerText()).toContain("the copy in Team was not deleted");
    expect((await ann.api.entries()).has("Printer")).toBe(true);
    expect((await vaultRows(ann)).map((r) => r.name)).toEqual(["Printer"]);
    await accessible(ann.page, "move-cut");
    await ann.page.unroute(`**/api/vaults/${vaultId}/entries/*`);

    await ann.page.getByRole("button", { name: "Delete", exact: true }).click();
    await ann.page.getByRole("button", { name: "Delete Printer for every member" }).click();
    await expect.poll(async () => (await vaultRows(ann)).length).toBe(0);
    expect((await ann.api.entries()).has("Printer")).toBe(true);
  });

  it("Cat leaves on her phone; Ann's app then offers a new key and lists what Cat could read", async () => {
    await openRoom(cat.page);
    await cat.page.getByRole("button", { name: "Leave this vault" }).click();
    await cat.page
      .getByRole("button", { name: "Leave Team: your copy of its key is deleted" })
      .click();
    await cat.page.getByRole("heading", { level: 1, name: "Shared vaults" }).waitFor();
    await expect.poll(() => cat.page.locator("#vaults-empty").isVisible()).toBe(true);
    await accessible(cat.page, "phone-left");
    expect((await cat.api.get(`/api/vaults/${vaultId}`)).status).toBe(404);
    expect((await cat.api.get(`/api/vaults/${vaultId}/key`)).status).toBe(404);
    expect(await roleOf(cat)).toBeUndefined();

    // Ben adds an entry first, so the new key has something to re-seal.
    await openRoom(ben.page);
    const form = ben.page.locator("#vault-entry-form");
    await form.getByLabel("Name", { exact: true }).fill("Wifi");
    await form.getByLabel("Password", { exact: true }).fill("pw-wifi-office");
    await form.getByRole("button", { name: "Add entry" }).click();
    await expect.poll(() => ben.page.locator("#vault-entries").innerText()).toContain("Wifi");

    await openRoom(ann.page);
    await expect.poll(() => ann.page.locator("#left-notice").isVisible()).toBe(true);
    await ann.page.getByRole("button", { name: "Change the vault's key now" }).click();
    const report = ann.page.locator("#rotation-report");
    await expect.poll(() => report.isVisible()).toBe(true);
    expect(await report.locator("h3").innerText()).toBe(
      "A member left; the vault is on key version 2",
    );
    expect(await report.locator("#exposed-entries li").allInnerTexts()).toEqual(["Wifi"]);
    expect((await ann.api.get(`/api/vaults/${vaultId}`)).body.vault.key_version).toBe(2);
    expect((await ben.api.get(`/api/vaults/${vaultId}/key`)).body.key_version).toBe(2);
    // Once the key changed the notice is gone.
    await openRoom(ann.page);
    await expect.poll(() => ann.page.locator("#member-rows tr").count()).toBe(2);
    expect(await ann.page.locator("#left-notice").count()).toBe(0);
  });

  it("Ben deletes the vault: the dialog names it and counts its entries; members lose it", async () => {
    await openRoom(ben.page);
    await expect.poll(() => ben.page.locator("#vault-entries li").count()).toBe(1);
    await ben.page.getByRole("button", { name: "Delete vault" }).click();
    const box = ben.page.getByRole("dialog", { name: "Delete the vault Team?" });
    await box.waitFor();
    expect(await box.innerText()).toContain("Team and its 1 entry are deleted for every member");
    await accessible(ben.page, "delete-dialog");
    await box.getByRole("button", { name: "Cancel" }).click();
    await box.waitFor({ state: "detached" });
    expect((await ben.api.get(`/api/vaults/${vaultId}`)).status).toBe(200);

    await ben.page.getByRole("button", { name: "Delete vault" }).click();
    await box.getByRole("button", { name: "Delete Team and 1 entry" }).click();
    await ben.page.getByRole("heading", { level: 1, name: "Shared vaults" }).waitFor();
    for (const who of [ben, ann]) {
      expect((await who.api.get(`/api/vaults/${vaultId}`)).status).toBe(404);
      expect((await who.api.get(`/api/vaults/${vaultId}/sync`)).status).toBe(404);
      expect((await who.api.get("/api/vaults")).body.vaults).toEqual([]);
    }
  });
});
