import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInWithEntries } from "./support/seed";
import { apiAs } from "./support/api";
import {
  entryNames,
  entryRow,
  launch,
  newUser,
  openEntry,
  revealedField,
  screenshot,
  signInThroughPage,
  type Browser,
  type Page,
} from "./support/browser";
import { base, openSection, personContext, useContactKey } from "./support/journey";

// Entries shared with a person appear in their vault, not only under Sharing: Olivia shares an
// entry with Rick read-only; after he accepts, it is in his vault list among his own entries,
// marked with who shared it and that it is read-only, and it opens read-only (its fields, no edit,
// no tools). Nothing of it is copied into Rick's own vault on the server.
const PASS_O = "olivia vault share passphrase";
const PASS_R = "rick vault share passphrase";
const SECRET = "pw-shared-board-4411";
let browser: Browser;
let olivia: Page;
let rick: Page;
let o: Awaited<ReturnType<typeof newUser>>;
let r: Awaited<ReturnType<typeof newUser>>;
let rApi: Awaited<ReturnType<typeof apiAs>>;

beforeAll(async () => {
  [o, r] = await Promise.all([newUser("olivia"), newUser("rick")]);
  rApi = await apiAs(base(), r.token);
  browser = await launch();
  olivia = (await personContext(browser)).page;
  const rickContext = (await personContext(browser)).context;
  await rickContext.grantPermissions(["clipboard-read", "clipboard-write"]);
  rick = await rickContext.newPage();
  rick.on("dialog", (d) => void d.accept());
  // Two people's browsers, set up side by side: neither waits on the other until the share.
  await Promise.all([
    signInWithEntries(olivia, o, PASS_O, [
      {
        name: "Team board",
        website: "board.example",
        username: "team@board.example",
        password: SECRET,
      },
    ]),
    (async () => {
      await signInWithEntries(rick, r, PASS_R, [
        {
          name: "Rick mail",
          website: "mail.example",
          username: "rick",
          password: "rick-own-1",
        },
        { name: "Zoo tickets", username: "rick", password: "rick-own-2" },
      ]);
      // Rick's sharing key is made on his first visit to Sharing; then Olivia can share with him.
      await openSection(rick, "Sharing");
      await rick
        .locator("#sharing-status")
        .getByText(/^Sharing is set up/)
        .waitFor();
    })(),
  ]);
  await openSection(olivia, "Sharing");
  await olivia.locator("#share-submit:not([disabled])").waitFor();
  await olivia.getByLabel("Entry", { exact: true }).selectOption({ label: "Team board" });
  await olivia.getByLabel("Recipient's email").fill(r.email);
  await olivia.getByRole("button", { name: "Share", exact: true }).click();
  // A first share to Rick shows his key's fingerprint to compare (first use).
  await useContactKey(olivia, r.email);
  await olivia.locator("#owned-rows tr", { hasText: r.email }).waitFor();
});

afterAll(async () => {
  await browser?.close();
});

const sharedMark = () => `Shared by ${o.email.toLowerCase()}, read-only`;

describe("entries shared with the person, in their vault", () => {
  it("a pending share is not in the vault; once accepted it is listed among their own, marked", async () => {
    await openSection(rick, "Vault");
    await expect.poll(() => entryNames(rick)).toEqual(["Rick mail", "Zoo tickets"]);
    await openSection(rick, "Sharing");
    await rick.getByRole("button", { name: "Accept Team board" }).click();
    await rick.getByRole("button", { name: "Open Team board" }).waitFor();
    await openSection(rick, "Vault");
    await expect.poll(() => entryNames(rick)).toEqual(["Rick mail", "Team board", "Zoo tickets"]);
    const row = entryRow(rick, "Team board");
    expect(await row.locator(".shared-mark").innerText()).toBe(sharedMark());
    expect(await row.locator(".site").innerText()).toBe("board.example");
    expect(await rick.locator("#entries-heading").innerText()).toBe("Entries (3)");
    await screenshot(rick, "screenshots/vault-shared-list-1280.png");
    // Nothing was copied into Rick's own vault on the server.
    expect([...(await rApi.entries()).keys()].sort()).toEqual(["Rick mail", "Zoo tickets"]);
  });

  it("opens read-only: its fields with copy, no edit, delete, favourite, folder or tools", async () => {
    await openEntry(rick, "Team board");
    expect(await rick.locator("#detail-shared").innerText()).toBe(sharedMark());
    expect(await revealedField(rick, "username")).toBe("team@board.example");
    expect(await rick.locator('#revealed-fields dd[data-field="password"]').innerText()).toBe(
      "••••••••••",
    );
    await rick.getByRole("button", { name: "Copy password" }).click();
    await expect.poll(() => rick.evaluate(() => navigator.clipboard.readText())).toBe(SECRET);
    for (const name of ["Edit Team board", "Delete Team board", "Favourite"])
      expect(
        await rick.locator("#revealed").getByRole("button", { name, exact: true }).count(),
      ).toBe(0);
    expect(await rick.getByLabel("In folder", { exact: true }).isVisible()).toBe(false);
    expect(await rick.getByRole("tab").allInnerTexts()).toEqual(["Details"]);
    await screenshot(rick, "screenshots/vault-shared-detail-1280.png");
    // An own entry opened next has its controls and tools back.
    await openEntry(rick, "Rick mail");
    expect(await rick.getByRole("button", { name: "Edit Rick mail" }).isVisible()).toBe(true);
    expect(await rick.locator("#detail-shared").isHidden()).toBe(true);
    expect((await rick.getByRole("tab").allInnerTexts()).length).toBeGreaterThan(1);
    await rick.locator("#hide-revealed").click();
  });

  it("filters: Shared with me lists only shared entries; favourites and folders leave them out; search finds them", async () => {
    await rick.getByLabel("Kind", { exact: true }).selectOption({ label: "Shared with me" });
    await expect.poll(() => entryNames(rick)).toEqual(["Team board"]);
    expect(await rick.locator("#entries-heading").innerText()).toBe("Entries: shared with me (1)");
    await rick.getByLabel("Kind", { exact: true }).selectOption({ label: "Logins" });
    await expect.poll(() => entryNames(rick)).toEqual(["Rick mail", "Zoo tickets"]);
    await rick.getByLabel("Kind", { exact: true }).selectOption({ label: "All kinds" });
    await rick.getByRole("button", { name: "Favourites", exact: true }).click();
    await expect.poll(() => entryNames(rick)).toEqual([]);
    await rick.getByRole("button", { name: "Favourites", exact: true }).click();
    await rick.locator("#search").fill("board");
    await expect.poll(() => entryNames(rick)).toEqual(["Team board"]);
    await rick.locator("#search").fill("");
    await expect.poll(() => entryNames(rick)).toEqual(["Rick mail", "Team board", "Zoo tickets"]);
  });
});

describe("at a 360 px phone width", () => {
  it("lists the shared entry with its mark and opens it as its own view, without sideways scrolling", async () => {
    const { page: phone } = await personContext(browser, { width: 360, height: 800 });
    await signInThroughPage(phone, r.token, PASS_R);
    await expect.poll(() => entryNames(phone)).toEqual(["Rick mail", "Team board", "Zoo tickets"]);
    expect(await entryRow(phone, "Team board").locator(".shared-mark").isVisible()).toBe(true);
    const noSideways = () =>
      phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(await noSideways()).toBe(true);
    await screenshot(phone, "screenshots/vault-shared-list-360.png");
    await openEntry(phone, "Team board");
    expect(await phone.locator("#list-pane").isHidden()).toBe(true);
    expect(await phone.locator("#detail-shared").innerText()).toBe(sharedMark());
    expect(await revealedField(phone, "password")).toBe(SECRET);
    expect(await noSideways()).toBe(true);
    await screenshot(phone, "screenshots/vault-shared-detail-360.png");
  });
});
