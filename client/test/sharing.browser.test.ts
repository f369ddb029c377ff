import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInWithEntries } from "./support/seed";
import { deriveVaultKeys } from "../../core/crypto/crypto";
import { fingerprint } from "../../core/crypto/trust";
import { apiAs, openFor } from "./support/api";
import {
  dashboardReady,
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type Page,
} from "./support/browser";
import { base, openSection, personContext } from "./support/journey";

// Two people, two browsers: Olivia shares an entry with Rick, who accepts, opens and edits it;
// Olivia sees the view log, lowers the permission and revokes. The server only ever holds ciphertext.
const PASS_O = "olivia passphrase 1";
const PASS_R = "rick passphrase 1";
const SECRET = "pw-team-wiki-7731";
let browser: Browser;
let olivia: Page;
let rick: Page;
let rickContext: Awaited<ReturnType<typeof personContext>>["context"];
let o: Awaited<ReturnType<typeof newUser>>;
let r: Awaited<ReturnType<typeof newUser>>;
let oApi: Awaited<ReturnType<typeof apiAs>>;
let rApi: Awaited<ReturnType<typeof apiAs>>;

beforeAll(async () => {
  [o, r] = await Promise.all([newUser("olivia"), newUser("rick")]);
  [oApi, rApi] = await Promise.all([apiAs(base(), o.token), apiAs(base(), r.token)]);
  browser = await launch();
  olivia = (await personContext(browser)).page;
  ({ page: rick, context: rickContext } = await personContext(browser));
  await rickContext.grantPermissions(["clipboard-read", "clipboard-write"]);
});

afterAll(async () => {
  await browser?.close();
});

const ownedRow = (p: Page, email: string) => p.locator("#owned-rows tr", { hasText: email });
const receivedRow = (p: Page, name: string) => p.locator("#received-rows tr", { hasText: name });

describe("sharing an entry between two people", () => {
  it("sets up each person's sharing key on first visit: public key and wrapped private key only", async () => {
    // The two browsers sign in side by side: neither waits on the other.
    await Promise.all([
      signInWithEntries(olivia, o, PASS_O, [
        {
          name: "Team wiki",
          website: "wiki.example",
          username: "olivia",
          password: SECRET,
          notes: "shared notes",
        },
      ]),
      signInThroughPage(rick, r.token, PASS_R),
    ]);
    await openSection(rick, "Sharing");
    await expect
      .poll(() => rick.locator("#sharing-status").innerText())
      .toMatch(/^Sharing is set up/);
    const key = await rApi.get("/api/sharing/public-key");
    expect(key.status).toBe(200);
    expect(Object.keys(key.body.publicKey).sort()).toEqual(["crv", "kty", "x", "y"]);
    expect(key.body.wrappedPrivateKey).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // Another user asking by email gets the public key, never the wrapped private half.
    const byEmail = await oApi.get(`/api/sharing/public-key?email=${encodeURIComponent(r.email)}`);
    expect(byEmail.body.wrappedPrivateKey).toBeUndefined();
    await screenshot(rick, "screenshots/sharing-empty.png");
  });

  it("refuses bad input with a clear message and shares nothing", async () => {
    await openSection(olivia, "Sharing");
    await olivia.locator("#share-submit:not([disabled])").waitFor();
    const error = olivia.locator("#share-error");
    await olivia.getByRole("button", { name: "Share", exact: true }).click();
    await expect.poll(() => error.innerText()).toBe("Choose the entry to share");
    await olivia.getByLabel("Entry", { exact: true }).selectOption({ label: "Team wiki" });
    await olivia.getByLabel("Recipient's email").fill("not-an-email");
    await olivia.getByRole("button", { name: "Share", exact: true }).click();
    await expect
      .poll(() => error.innerText())
      .toBe("Enter the recipient's email address, like name@example.com");
    await olivia.getByLabel("Recipient's email").fill(o.email);
    await olivia.getByRole("button", { name: "Share", exact: true }).click();
    await expect.poll(() => error.innerText()).toBe("You cannot share an entry with yourself");
    await olivia.getByLabel("Recipient's email").fill("nobody-here@example.test");
    await olivia.getByRole("button", { name: "Share", exact: true }).click();
    await expect
      .poll(() => error.innerText())
      .toBe(
        "nobody-here@example.test has no vault here yet: ask them to sign in and open their vault once, then try again",
      );
    await olivia.getByLabel("Recipient's email").fill(r.email);
    await olivia.getByLabel("Expires on (optional)").fill("2001-01-01");
    await olivia.getByRole("button", { name: "Share", exact: true }).click();
    await expect.poll(() => error.innerText()).toBe("The expiry date must be in the future");
    await screenshot(olivia, "screenshots/sharing-bad-input.png");
    expect((await oApi.get("/api/sharing?type=owned")).body.shares).toEqual([]);
  });

  it("the first share with Rick shows his key's fingerprint to compare; declining sends and pins nothing", async () => {
    const expiry = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    await olivia.getByLabel("Expires on (optional)").fill(expiry);
    await olivia.getByLabel("Permission", { exact: true }).selectOption("write");
    const rickFingerprint = await fingerprint(
      (await rApi.get("/api/sharing/public-key")).body.publicKey,
    );
    // The app's own panel asks, before anything is sent; here the person reads it and cancels.
    await olivia.getByRole("button", { name: "Share", exact: true }).click();
    const panel = olivia.getByRole("dialog", { name: `Compare ${r.email}'s key` });
    await panel.waitFor();
    expect(await panel.locator("#first-use-fingerprint").innerText()).toBe(rickFingerprint);
    const asked = await panel.innerText();
    expect(asked).toContain(`first time this device uses ${r.email}'s key`);
    expect(asked).toMatch(
      /Compare it with the fingerprint .* sees under "Your sharing key" on their Contacts' keys page/,
    );
    await screenshot(olivia, "screenshots/sharing-first-use-key.png");
    // Cancel is where the focus starts: Enter or Escape sends nothing.
    expect(await olivia.evaluate(() => document.activeElement?.id)).toBe("first-use-cancel");
    await panel.getByRole("button", { name: "Cancel" }).click();
    await expect
      .poll(() => olivia.locator("#share-error").innerText())
      .toBe(`Nothing was sent to ${r.email}. Compare fingerprints with them, then try again.`);
    expect(await panel.count()).toBe(0);
    expect((await oApi.get("/api/sharing?type=owned")).body.shares).toEqual([]);
  });

  it("shares with write permission and an expiry; the server holds the key wrapped for Rick", async () => {
    // Nothing was pinned: the next attempt asks again, and the person goes ahead.
    await olivia.getByRole("button", { name: "Share", exact: true }).click();
    const panel = olivia.getByRole("dialog", { name: `Compare ${r.email}'s key` });
    await panel.getByRole("button", { name: "Use without comparing" }).click();
    await ownedRow(olivia, r.email).waitFor();
    expect(await panel.count()).toBe(0);
    expect(await ownedRow(olivia, r.email).locator("td").nth(2).innerText()).toBe("pending");
    await screenshot(olivia, "screenshots/sharing-owner.png");
    const owned = (await oApi.get("/api/sharing?type=owned")).body.shares;
    expect(owned).toHaveLength(1);
    expect(owned[0]).toMatchObject({
      recipient_email: r.email,
      permission: "write",
      status: "pending",
    });
    expect(owned[0].expires_at.slice(0, 10)).toBe(
      new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
    );
    expect(JSON.stringify(owned)).not.toContain(SECRET);
  });

  it("Rick sees it pending, accepts and opens it: decrypted in his browser", async () => {
    await rick.reload();
    await dashboardReady(rick);
    await receivedRow(rick, "Team wiki").waitFor();
    expect(await receivedRow(rick, "Team wiki").locator("td").nth(2).innerText()).toBe("pending");
    await rick.getByRole("button", { name: "Accept Team wiki" }).click();
    await expect
      .poll(() => receivedRow(rick, "Team wiki").locator("td").nth(2).innerText())
      .toBe("active");
    await rick.getByRole("button", { name: "Open Team wiki" }).click();
    // Masked like the person's own entries, with Show and Copy.
    const password = rick.locator('#shared-fields dd[data-field="password"]');
    await expect.poll(() => password.innerText()).toBe("••••••••••");
    expect(await rick.locator('#shared-fields dd[data-field="notes"]').innerText()).toBe(
      "shared notes",
    );
    const shared = rick.locator("#shared-entry");
    await shared.getByRole("button", { name: "Copy password" }).click();
    await expect.poll(() => rick.evaluate(() => navigator.clipboard.readText())).toBe(SECRET);
    expect(await password.innerText()).toBe("••••••••••");
    await shared.getByRole("button", { name: "Show password" }).click();
    expect(await password.innerText()).toBe(SECRET);
    await screenshot(rick, "screenshots/sharing-recipient-open.png");
    await shared.getByRole("button", { name: "Hide password" }).click();
    expect(await password.innerText()).toBe("••••••••••");
    // What the server gave Rick: ciphertext and a wrapped key, no secret in the clear.
    const received = (await rApi.get("/api/sharing?type=received")).body.shares;
    expect(received[0].account.wrapped_item_key).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(JSON.stringify(received)).not.toContain(SECRET);
  });

  it("Olivia's view log shows Rick's copy and view", async () => {
    await olivia.reload();
    await dashboardReady(olivia);
    await olivia.getByRole("button", { name: `View log of Team wiki for ${r.email}` }).click();
    await expect.poll(() => olivia.locator("#log-rows li").count()).toBe(2);
    expect(
      (await olivia.locator("#log-rows li").allInnerTexts()).map((t) => t.split(" ")[0]).sort(),
    ).toEqual(["Copied", "Viewed"]);
    await screenshot(olivia, "screenshots/sharing-view-log.png");
  });

  it("Rick edits it (write permission): refused when empty, then saved as ciphertext Olivia's vault opens", async () => {
    await rick.getByRole("button", { name: "Edit Team wiki" }).click();
    await rick.getByLabel("Password", { exact: true }).fill("");
    await rick.getByRole("button", { name: "Save changes" }).click();
    await expect
      .poll(() => rick.locator("#se-error").innerText())
      .toBe("The password cannot be empty");
    await rick.getByLabel("Password", { exact: true }).fill("pw-rotated-by-rick");
    await rick.getByRole("button", { name: "Save changes" }).click();
    await expect
      .poll(() => rick.locator("#toast").innerText())
      .toBe("Saved Team wiki for its owner");
    const entry = (await oApi.entries()).get("Team wiki");
    expect(JSON.stringify(entry)).not.toContain("pw-rotated-by-rick");
    const keys = await deriveVaultKeys(PASS_O, o.sub);
    expect((await openFor(keys, o.sub, entry)).password).toBe("pw-rotated-by-rick");
  });

  it("opens Rick's shares offline from the local store", async () => {
    await rickContext.setOffline(true);
    try {
      await rick.reload();
      await dashboardReady(rick);
      await expect
        .poll(() => rick.locator("#sharing-offline").innerText())
        .toMatch(/^Offline: shares as of /);
      await rick.getByRole("button", { name: "Open Team wiki" }).click();
      await rick.locator("#shared-entry").getByRole("button", { name: "Show password" }).click();
      await expect
        .poll(() => rick.locator('#shared-fields dd[data-field="password"]').innerText())
        .toBe("pw-rotated-by-rick");
      await screenshot(rick, "screenshots/sharing-offline.png");
    } finally {
      await rickContext.setOffline(false);
    }
  });

  it("Olivia lowers the permission to read, then revokes: Rick loses edit, then the share", async () => {
    await olivia.getByLabel(`Permission for ${r.email} on Team wiki`).selectOption("read");
    await expect
      .poll(async () => (await oApi.get("/api/sharing?type=owned")).body.shares[0].permission)
      .toBe("read");
    await rick.reload();
    await dashboardReady(rick);
    await rick.getByRole("button", { name: "Open Team wiki" }).waitFor();
    expect(await rick.getByRole("button", { name: "Edit Team wiki" }).count()).toBe(0);
    // A read share refuses a write even if a page tried.
    const shareId = (await rApi.get("/api/sharing?type=received")).body.shares[0].id;
    expect((await rApi.patch(`/api/sharing/${shareId}/account`, { name: "hijacked" })).status).toBe(
      403,
    );

    await olivia.getByRole("button", { name: `Revoke Team wiki for ${r.email}` }).click();
    await expect
      .poll(() => ownedRow(olivia, r.email).locator("td").nth(2).innerText())
      .toBe("revoked");
    await rick.reload();
    await dashboardReady(rick);
    await rick.locator("#received-empty:not([hidden])").waitFor();
    expect((await rApi.get("/api/sharing?type=received")).body.shares).toEqual([]);
    await screenshot(olivia, "screenshots/sharing-revoked.png");
  });
});
