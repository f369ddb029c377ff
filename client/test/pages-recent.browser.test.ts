import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson, serverEntry } from "./support/account";
import { apiAs } from "./support/api";
import {
  entryNames,
  launch,
  newUser,
  openEntry,
  waitForPending,
  type Browser,
  type Page,
} from "./support/browser";
import { base } from "./support/journey";
import { signInWithTheEnrolmentCode } from "./support/two-factor";
import {
  axeViolations,
  checkEverywhere,
  checkNow,
  darkOnDark,
  offScreen,
  openPath,
  THEMES,
  view,
} from "./support/pages";

// The pages and states added after the every-page check (pages.browser.test.ts), checked the same
// way: at phone and desktop widths, light and dark, nothing scrolls sideways, axe-core finds no
// serious or critical violation (colour contrast among them), and no text is dark on dark. The
// Trash with an entry in it and the Undo toast, Settings' auto-lock and extension cards, a
// notification that waits for an answer, the sign-in's "code just used", and the phone's vault
// page with its filters folded and the keyboard help open.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;
const ENTRIES = ["Bank", "GitHub", "Gmail"].map((name) => ({
  name,
  website: `${name.toLowerCase()}.example`,
  username: "pat",
  password: `pw-${name}-1`,
}));

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "recent", undefined, ENTRIES);
});

afterAll(async () => {
  await browser?.close();
});

const toast = (page: Page) => page.locator("#toast");

describe("pages added recently, at phone and desktop widths, light and dark", () => {
  it("the Trash with a deleted entry in it", async () => {
    const { page, api } = person;
    const gmail = await serverEntry(api, "Gmail");
    expect((await api.delete(`/api/passwords/${gmail.id}`)).status).toBe(200);
    await openPath(page, "/vault");
    await page.getByRole("button", { name: /^Trash/ }).click();
    await expect
      .poll(() => page.locator("#trash-list .trash-name strong").allInnerTexts())
      .toEqual(["Gmail"]);
    expect(await checkEverywhere(page, "trash")).toEqual([]);
    // Still the one entry the server holds in its trash: nothing above changed it.
    expect(
      (await api.get("/api/passwords/trash")).body.data.map((e: { name: string }) => e.name),
    ).toEqual(["Gmail"]);
    // Its question before a delete for good (the app's one modal dialog), then kept: Cancel.
    await page.getByRole("button", { name: "Delete for good: Gmail" }).click();
    const ask = page.getByRole("dialog", { name: "Delete Gmail for good?" });
    await ask.waitFor();
    expect(await checkEverywhere(page, "trash-delete-for-good")).toEqual([]);
    await ask.getByRole("button", { name: "Cancel" }).click();
    await ask.waitFor({ state: "detached" });
    expect((await api.get("/api/passwords/trash")).body.data).toHaveLength(1);
    await page.getByRole("button", { name: /^Trash/ }).click();
    await page.locator("#trash-view").waitFor({ state: "hidden" });
  });

  it("the toast after a delete, its Undo on screen, at 390 and 1280 px", async () => {
    const { page } = person;
    await openPath(page, "/vault");
    const found: string[] = [];
    for (const theme of THEMES) {
      for (const width of [390, 1280]) {
        await view(page, width, theme);
        await openEntry(page, "Bank");
        await page.getByRole("button", { name: "Delete Bank", exact: true }).click();
        await expect.poll(() => toast(page).innerText()).toContain("Moved Bank to Trash");
        found.push(...(await checkNow(page, "undo-toast", width, theme)));
        // The checks saw the toast: it is still there (it stays 10 s with an action; one width and
        // theme's checks take about a second), and its Undo brings the entry back.
        expect(await toast(page).getByRole("button", { name: "Undo" }).isVisible()).toBe(true);
        await toast(page).getByRole("button", { name: "Undo" }).click();
        await expect.poll(() => toast(page).innerText()).toBe("Restored Bank");
        await expect.poll(() => entryNames(page)).toContain("Bank");
        await waitForPending(page, 0);
      }
    }
    await view(page, 1280, "light");
    expect(found).toEqual([]);
  });

  it("Settings' auto-lock (a choice just saved) and browser-extension cards", async () => {
    const { page } = person;
    await openPath(page, "/settings");
    await page
      .getByLabel("Lock after this long without activity")
      .selectOption({ label: "1 hour" });
    await page.getByLabel("Also lock when the browser closes").check();
    await expect
      .poll(() => page.locator("#lock-saved").innerText())
      .toBe("Saved: this device locks after 1 hour without activity and when the browser closes.");
    expect(await checkEverywhere(page, "settings-lock-extension")).toEqual([]);
    // On a phone the checkbox sits beside its words, not on a line of its own above them.
    await view(page, 360, "light");
    const box = (await page.getByLabel("Also lock when the browser closes").boundingBox())!;
    const words = (await page
      .locator("label", { hasText: "Also lock when the browser closes" })
      .boundingBox())!;
    expect(Math.abs(box.y + box.height / 2 - (words.y + words.height / 2))).toBeLessThan(4);
    for (const theme of THEMES) {
      await view(page, 390, theme);
      for (const [card, name] of [
        ["#autolock-heading", "settings-lock"],
        ["#extension-heading", "settings-extension"],
      ] as const) {
        await page
          .locator("section.card", { has: page.locator(card) })
          .screenshot({ path: `test-artifacts/screenshots/pages/${name}-390-${theme}.png` });
      }
    }
    await view(page, 1280, "light");
  });

  it("Notifications with an emergency invitation (Review and accept) and a read one", async () => {
    const { page, api, user } = person;
    // The invitee's sharing key is made with the vault; an invitation names an account that has one.
    await expect.poll(async () => (await api.get("/api/sharing/public-key")).status).toBe(200);
    const owners = await Promise.all([newUser("inviter"), newUser("reader")]);
    for (const owner of owners) {
      const ownerApi = await apiAs(base(), owner.token);
      const sent = await ownerApi.post("/api/vault/emergency", {
        email: user.email,
        wait_hours: 12,
        wrapped_access_key: Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString(
          "base64",
        ),
        invite_salt: crypto.randomUUID(),
      });
      expect(sent.status).toBe(201);
    }
    // One of the two read: a read notification is drawn fainter, and must stay readable.
    type Notice = { id: string; type: string; actor_email: string; is_read: boolean };
    const notices = async () =>
      (await api.get("/api/notifications")).body.notifications as Notice[];
    const read = (await notices()).find((n) => n.actor_email === owners[1]!.email)!;
    expect((await api.patch(`/api/notifications/${read.id}`, { is_read: true })).status).toBe(200);
    expect((await notices()).map((n) => [n.type, n.actor_email, n.is_read]).sort()).toEqual([
      ["emergency_contact_invited", owners[0]!.email, false],
      ["emergency_contact_invited", owners[1]!.email, true],
    ]);
    await openPath(page, "/notifications");
    const items = page.locator("#notifications li", {
      hasText: "You were named an emergency contact",
    });
    await expect.poll(() => items.count()).toBe(2);
    await expect
      .poll(() => page.getByRole("button", { name: /^Review and accept/ }).count())
      .toBe(2);
    await page.locator("#notifications li.read").waitFor();
    await expect.poll(() => page.locator("#unread-count").innerText()).toBe("1 unread");
    expect(await checkEverywhere(page, "notifications-invitation")).toEqual([]);
  });

  it("the vault page on a phone: filters folded, the keyboard help open; then the filters open", async () => {
    const { page } = person;
    await openPath(page, "/vault");
    await view(page, 390, "light");
    const filters = page.getByRole("button", { name: "Filters", exact: true });
    const help = page.getByRole("button", { name: "Keyboard help" });
    expect(await filters.getAttribute("aria-expanded")).toBe("false");
    await help.click();
    await page.locator("#search-help").waitFor();
    expect(await page.getByLabel("Sort by", { exact: true }).isVisible()).toBe(false);
    expect(await checkEverywhere(page, "vault-phone-help", [360, 390])).toEqual([]);
    await help.click();
    await view(page, 390, "light");
    await filters.click();
    await page.getByLabel("Sort by", { exact: true }).waitFor();
    expect(await checkEverywhere(page, "vault-phone-filters", [360, 390])).toEqual([]);
    await view(page, 390, "light");
    await filters.click();
    expect(await page.getByLabel("Sort by", { exact: true }).isVisible()).toBe(false);
    await view(page, 1280, "light");
  });

  it("the sign-in's 2FA dialog saying the code was just used", async () => {
    const usedCode = await signedInPerson(browser, "usedcode", "used code passphrase 16");
    const { page, user } = usedCode;
    const { dialog } = await signInWithTheEnrolmentCode(page, user.email);
    await expect
      .poll(() => dialog.getByRole("alert").innerText())
      .toBe("This code was just used. Wait for the next code, or use a recovery code.");
    const found = await checkEverywhere(page, "signin-2fa-used-code");
    // The message stayed for every check.
    expect(await dialog.getByRole("alert").isVisible()).toBe(true);
    expect(found).toEqual([]);
    await usedCode.context.close();
  });

  it("the checks themselves: dark text on dark and a too-wide dialog are caught in the dark theme", async () => {
    const page = await browser.newPage();
    // A colour left at its light-theme value: readable in light, dark on dark in dark.
    await page.setContent(`<!doctype html><html lang="en"><head><title>t</title><style>
      :root { color-scheme: light dark; background: #fff; color: #1e293b; }
      @media (prefers-color-scheme: dark) { :root { background: #0f172a; } }
      dialog { width: calc(100% - 2rem); padding: 1.25rem; }
    </style></head><body><main><p id="faint">Left at the light colour</p>
    <dialog id="box" aria-label="Box"><p>Dialog text</p></dialog></main></body></html>`);
    await view(page, 390, "light");
    expect(await darkOnDark(page)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await view(page, 390, "dark");
    expect(await darkOnDark(page)).toEqual([
      expect.stringMatching(/^p#faint "Left at the light colour": rgb\(30, 41, 59\) on 15,23,42/),
    ]);
    expect(await axeViolations(page)).toEqual([
      expect.stringMatching(/^serious color-contrast .*#faint/),
    ]);
    await page.evaluate(() => (document.getElementById("box") as HTMLDialogElement).showModal());
    expect(await offScreen(page)).toEqual([expect.stringMatching(/^dialog#box \(left /)]);
    await page.close();
  });
});
