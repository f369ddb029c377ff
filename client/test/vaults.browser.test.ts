import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fingerprint } from "../../core/crypto/trust";
import { signedInPerson } from "./support/account";
import { screenshot, type Browser, type Page } from "./support/browser";
import { launch, useContactKey } from "./support/journey";
import { axeViolations, openPath } from "./support/pages";

// Shared vaults between three people, each in their own browser: Ann (owner, desktop) makes a
// vault and invites Ben (editor, desktop) and Cat (viewer, a 390 px phone); each compares Ann's
// key and accepts; Ann's app compares theirs and wraps the vault key for them; both read Ann's
// entry, Ben adds one; Ann removes Ben, her app gives the vault a new key version and lists what
// Ben could read; Cat still reads every entry under the new key. The server is asked what it holds.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
let browser: Browser;
let ann: Person;
let ben: Person;
let cat: Person;
let vaultId = "";
const PASSWORD = "pw-bank-family-5521";

beforeAll(async () => {
  browser = await launch();
  // One after another: three sign-ins at once on a loaded machine were refused a connection.
  ann = await signedInPerson(browser, "ann");
  ben = await signedInPerson(browser, "ben");
  cat = await signedInPerson(browser, "cat");
  await cat.page.setViewportSize({ width: 390, height: 844 });
});

afterAll(async () => {
  await browser?.close();
});

const memberRow = (p: Page, email: string) => p.locator(`#member-rows tr[data-member="${email}"]`);
const stateOf = (p: Page, email: string) =>
  memberRow(p, email).locator(".member-state").innerText();

async function accessible(p: Page, name: string) {
  expect(await axeViolations(p)).toEqual([]);
  await screenshot(p, `screenshots/vaults-${name}.png`);
}

async function acceptInvitation(p: Person) {
  await openPath(p.page, "/vaults");
  const card = p.page.locator(".vault-invitation");
  await expect.poll(() => card.count()).toBe(1);
  expect(await card.innerText()).toContain(ann.user.email);
  await card.getByRole("button", { name: "Compare key and accept" }).click();
  // The inviter's fingerprint, as Ann's Keys page shows it, before anything is accepted.
  const panel = p.page.getByRole("dialog", { name: `Compare ${ann.user.email}'s key` });
  const shown = await panel.locator("#first-use-fingerprint").innerText();
  const annKey = (await ann.api.get("/api/sharing/public-key")).body.publicKey;
  expect(shown).toBe(await fingerprint(annKey));
  await useContactKey(p.page, ann.user.email, true);
  await expect
    .poll(() => p.page.locator(`#vault-rows tr[data-vault="${vaultId}"]`).innerText())
    .toContain("Waiting for an owner or manager");
}

describe("shared vaults: create, invite, accept, wrap, read, remove with a new key", () => {
  it("Ann creates a vault: the server holds a sealed name and her copy of key version 1", async () => {
    await openPath(ann.page, "/vaults");
    await ann.page.getByLabel("Vault name").fill("Family");
    await ann.page.getByRole("button", { name: "Create vault" }).click();
    await ann.page.getByRole("heading", { level: 1, name: "Family" }).waitFor();
    const { body } = await ann.api.get("/api/vaults");
    expect(body.vaults).toHaveLength(1);
    vaultId = body.vaults[0].id;
    expect(body.vaults[0]).toMatchObject({
      key_version: 1,
      role: "owner",
      member_state: "wrapped",
    });
    expect(body.vaults[0].sealed_name).not.toContain("Family");
    const key = await ann.api.get(`/api/vaults/${vaultId}/key`);
    expect(key.body.key_version).toBe(1);
    expect(ann.page.url()).toContain(`/vaults/${vaultId}`);
  });

  it("Ann adds an entry; the server holds only its ciphertext", async () => {
    const form = ann.page.locator("#vault-entry-form");
    await form.getByLabel("Name", { exact: true }).fill("Bank");
    await form.getByLabel("Website").fill("bank.example");
    await form.getByLabel("Username", { exact: true }).fill("ann@family");
    await form.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await form.getByRole("button", { name: "Add entry" }).click();
    await expect.poll(() => ann.page.locator("#vault-entries").innerText()).toContain("Bank");
    const pulled = await ann.api.get(`/api/vaults/${vaultId}/sync`);
    const live = pulled.body.changes.filter((c: { _deleted: boolean }) => !c._deleted);
    expect(live.map((c: { name: string }) => c.name)).toEqual(["Bank"]);
    expect(JSON.stringify(live)).not.toContain(PASSWORD);
  });

  it("Ann invites Ben as editor and Cat as viewer: both pending", async () => {
    for (const [who, role] of [
      [ben, "editor"],
      [cat, "viewer"],
    ] as const) {
      await ann.page.getByLabel("Their email").fill(who.user.email);
      await ann.page.getByLabel("Role", { exact: true }).selectOption(role);
      await ann.page.getByRole("button", { name: "Invite", exact: true }).click();
      await expect.poll(() => stateOf(ann.page, who.user.email)).toBe("Invited, not accepted yet");
    }
    await accessible(ann.page, "owner-invited");
  });

  it("Ben and Cat find the invitation in the app, compare Ann's key and accept", async () => {
    await acceptInvitation(ben);
    await acceptInvitation(cat);
    await accessible(cat.page, "phone-waiting");
    const { body } = await ann.api.get(`/api/vaults/${vaultId}/members`);
    const states = Object.fromEntries(
      body.members.map((m: { email: string; state: string }) => [m.email, m.state]),
    );
    expect(states).toMatchObject({ [ben.user.email]: "accepted", [cat.user.email]: "accepted" });
    // No copy of the key for either until an owner's or manager's app makes one.
    expect((await ben.api.get(`/api/vaults/${vaultId}/key`)).status).toBe(404);
  });

  it("Ann's app compares each new member's key, then wraps the vault key for them", async () => {
    await openPath(ann.page, `/vaults/${vaultId}`);
    for (const who of [ben, cat]) {
      await expect.poll(() => stateOf(ann.page, who.user.email)).toBe("Waiting for the key");
      await memberRow(ann.page, who.user.email)
        .getByRole("button", { name: "Compare key and give access" })
        .click();
      await useContactKey(ann.page, who.user.email, true);
      await expect.poll(() => stateOf(ann.page, who.user.email)).toBe("In");
    }
    for (const who of [ben, cat]) {
      const copy = await who.api.get(`/api/vaults/${vaultId}/key`);
      expect(copy.status).toBe(200);
      expect(copy.body.key_version).toBe(1);
    }
  });

  it("Ben (editor) reads Ann's entry and adds one; Cat (viewer, phone) reads both and cannot add", async () => {
    await openPath(ben.page, `/vaults/${vaultId}`);
    await ben.page.getByRole("heading", { level: 1, name: "Family" }).waitFor();
    await ben.page.locator('#vault-entries button:text-is("Bank")').click();
    await ben.page.getByRole("button", { name: "Show password" }).click();
    await expect.poll(() => ben.page.locator("#vault-entry-password").innerText()).toBe(PASSWORD);
    const form = ben.page.locator("#vault-entry-form");
    await form.getByLabel("Name", { exact: true }).fill("Wifi");
    await form.getByLabel("Password", { exact: true }).fill("pw-wifi-home");
    await form.getByRole("button", { name: "Add entry" }).click();
    await expect.poll(() => ben.page.locator("#vault-entries").innerText()).toContain("Wifi");

    await openPath(cat.page, `/vaults/${vaultId}`);
    await expect.poll(() => cat.page.locator("#vault-entries li").count()).toBe(2);
    expect(await cat.page.locator("#vault-entry-form").count()).toBe(0);
    await cat.page.locator('#vault-entries button:text-is("Bank")').click();
    await cat.page.getByRole("button", { name: "Show password" }).click();
    await expect.poll(() => cat.page.locator("#vault-entry-password").innerText()).toBe(PASSWORD);
    await accessible(cat.page, "phone-viewer");
  });

  it("the vault page lists Personal and the shared vault with its count", async () => {
    await openPath(ann.page, "/vault");
    const places = ann.page.getByRole("navigation", { name: "Vaults" });
    await expect
      .poll(() => places.locator(`[data-place="${vaultId}"]`).innerText())
      .toBe("Family (2)");
    expect(await places.locator('[data-place="personal"]').innerText()).toMatch(
      /^Personal \(\d+\)$/,
    );
  });

  it("Ann removes Ben: a new key version, the entries Ben could read listed, Cat still reads", async () => {
    await openPath(ann.page, `/vaults/${vaultId}`);
    await memberRow(ann.page, ben.user.email).getByRole("button", { name: "Remove" }).click();
    await memberRow(ann.page, ben.user.email)
      .getByRole("button", { name: `Remove ${ben.user.email} and change the vault's key` })
      .click();
    const report = ann.page.locator("#rotation-report");
    await expect.poll(() => report.isVisible()).toBe(true);
    expect(await report.locator("h3").innerText()).toContain("key version 2");
    expect(await report.locator("#exposed-entries li").allInnerTexts()).toEqual([
      "Bank bank.example",
      "Wifi",
    ]);
    await accessible(ann.page, "owner-rotated");
    const { body } = await ann.api.get(`/api/vaults/${vaultId}`);
    expect(body.vault.key_version).toBe(2);
    expect((await ben.api.get(`/api/vaults/${vaultId}`)).status).toBe(404);
    expect((await ben.api.get(`/api/vaults/${vaultId}/sync`)).status).toBe(404);
    const catCopy = await cat.api.get(`/api/vaults/${vaultId}/key`);
    expect(catCopy.body.key_version).toBe(2);
    // Every entry was re-sealed: its wrap header now names key version 2.
    const pulled = await ann.api.get(`/api/vaults/${vaultId}/sync`);
    for (const c of pulled.body.changes.filter((x: { _deleted: boolean }) => !x._deleted)) {
      const bytes = Buffer.from(c.wrapped_item_key, "base64");
      expect(bytes.readUInt32BE(4)).toBe(2);
    }
    await openPath(cat.page, `/vaults/${vaultId}`);
    await expect
      .poll(() => cat.page.locator("#vault-room-role").innerText())
      .toContain("key version 2");
    await cat.page.locator('#vault-entries button:text-is("Bank")').click();
    await cat.page.getByRole("button", { name: "Show password" }).click();
    await expect.poll(() => cat.page.locator("#vault-entry-password").innerText()).toBe(PASSWORD);
  });

  it("a member the server gives another key is shown as changed and gets no copy", async () => {
    // Ben comes back, but the server now hands out a key of its own for him: Ann's app pinned
    // the one she compared, so it shows both fingerprints and wraps nothing.
    const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
      "deriveBits",
    ]);
    const { x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
    const swapped = await ben.api.put("/api/sharing/public-key", {
      publicKey: { kty: "EC", crv: "P-256", x, y },
      wrappedPrivateKey: Buffer.from(crypto.getRandomValues(new Uint8Array(64))).toString("base64"),
    });
    expect(swapped.status).toBe(200);
    const inv = await ann.api.post(`/api/vaults/${vaultId}/invitations`, {
      email: ben.user.email,
      role: "viewer",
    });
    expect(inv.status).toBe(201);
    expect(
      (await ben.api.post(`/api/vaults/invitations/${inv.body.invitation.id}/accept`)).status,
    ).toBe(200);
    await openPath(ann.page, `/vaults/${vaultId}`);
    await expect.poll(() => stateOf(ann.page, ben.user.email)).toBe("Waiting for the key");
    const notes = ann.page.locator("#member-notes");
    await expect.poll(() => notes.innerText()).toContain(`${ben.user.email}'s key changed`);
    expect(await notes.innerText()).toContain(
      await fingerprint({ kty: "EC", crv: "P-256", x: x!, y: y! }),
    );
    await memberRow(ann.page, ben.user.email)
      .getByRole("button", { name: "Compare key and give access" })
      .click();
    await expect.poll(() => notes.innerText()).toContain("different key");
    const { body } = await ann.api.get(`/api/vaults/${vaultId}/members`);
    expect(body.members.find((m: { email: string }) => m.email === ben.user.email).state).toBe(
      "accepted",
    );
    expect((await ben.api.get(`/api/vaults/${vaultId}/key`)).status).toBe(404);
  });
});
